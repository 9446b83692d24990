import CKernels
import Testing
import Foundation
@testable import Engine

/// The per-path kernel table (kernel_table.c) and the format table's repacked sizes.
@Suite struct KernelTableTests {
    /// The emulated AVX-512 and AMX builds run wherever AVX2 does, so the kernel tests cover both
    /// on every x86-64 machine (not only on the CPUs that have the units).
    @Test func emulatedPathsRunWhereverAVX2Does() {
        guard KernelPath.avx2.isSupported else { return }
        #expect(simdPaths.contains(.avx512Emulated) && simdPaths.contains(.amxEmulated))
        // Never chosen by default: the best path is a native one.
        #expect(![KernelPath.avx512Emulated, .amxEmulated].contains(KernelPath.best))
    }

    /// Each table entry is named as QUANTA_KERNEL_PATH spells it, and KernelPath agrees.
    @Test func tableNamesMatchKernelPath() {
        for path in KernelPath.allCases {
            let table = ck_kernels(ck_kernel_path(rawValue: UInt32(path.rawValue)))!
            #expect(String(cString: table.pointee.name) == path.description)
            #expect(table.pointee.path.rawValue == UInt32(path.rawValue))
        }
    }

    /// Every path names a kernel for every row op, KV cache format and attention kind: the drivers
    /// call the slot without testing it (a kernel that covers only some shapes hands the others on
    /// itself).
    @Test func rowAndAttentionSlotsAreFilledOnEveryPath() {
        for path in KernelPath.allCases {
            let t = ck_kernels(ck_kernel_path(rawValue: UInt32(path.rawValue)))!.pointee
            let kv = t.kv_store, split = t.attention_split
            let slots: [Any?] = [t.swiglu, t.geglu, t.rms_norm_vectors, t.attention_prefill, t.attention_head_f16,
                                 kv.0, kv.1, kv.2, split.0, split.1, split.2]
            #expect(slots.count == 5 + 2 * Int(CK_KV_FORMAT_COUNT))
            for (i, slot) in slots.enumerated() { #expect(slot != nil, "\(path): slot \(i) is empty") }
        }
    }

    /// Every path names a decode kernel and a threaded prefill region for every weight format
    /// (ref: its tile kernel and the generic driver over it; F32 / F16 off ref: sgemm), and every
    /// path, ref included, names its prefill attention's phases and row decoder: the drivers
    /// never test a slot.
    @Test func matmulAndPrefillPhaseSlotsAreFilledOnEveryPath() {
        for path in KernelPath.allCases {
            let t = ck_kernels(ck_kernel_path(rawValue: UInt32(path.rawValue)))!.pointee
            let formats = Mirror(reflecting: t.format).children.map { $0.value as! ck_format_kernels }
            #expect(formats.count == Int(CK_WF_COUNT.rawValue))
            for (f, k) in formats.enumerated() {
                #expect(k.decode != nil, "\(path): format \(f) has no decode kernel")
                #expect(k.prefill != nil, "\(path): format \(f) has no prefill region")
            }
            let phases: [Any?] = [t.attention_scores, t.attention_values, t.attention_softmax, t.attention_rows]
            for (i, slot) in phases.enumerated() { #expect(slot != nil, "\(path): prefill phase \(i) is empty") }
        }
    }

    /// The best path is the fastest supported native one; AMX needs AVX-512 VNNI (its decode and
    /// fallback) and the kernel's tile permission. (Forcing a path is process-wide, so this suite
    /// does not, to leave the tests running beside it alone.)
    @Test func bestIsTheFastestSupportedNativePath() {
        #expect(KernelPath.best.isSupported)
        let native: [KernelPath] = [.ref, .neon, .dotprod, .i8mm, .avx2, .avx512, .amx]
        #expect(KernelPath.best == native.last { $0.isSupported })
        if KernelPath.amx.isSupported { #expect(KernelPath.avx512.isSupported) }
        #expect(KernelPath.active.isSupported)
    }

    /// A call that names a path runs that path's table when this CPU runs it, else the best
    /// path's; a call that names none runs the active path's (resolved once, not per call).
    @Test func namedPathsResolveToTheirTableOrTheBest() {
        for path in KernelPath.allCases {
            let table = ck_kernels_for_path(path.rawValue)!.pointee
            #expect(table.path.rawValue == UInt32(path.isSupported ? path.rawValue : KernelPath.best.rawValue), "\(path)")
        }
        #expect(ck_kernels_for_path(-1)!.pointee.path.rawValue == UInt32(KernelPath.active.rawValue))
    }

    /// Where Linux lists AMX-TILE and AMX-INT8 in /proc/cpuinfo, the native AMX path is supported
    /// (CPUID and the tile-data permission), so the kernel tests run the real tiles there and not
    /// only the emulated model.
    @Test func nativeAMXRunsWhereTheCPUHasIt() throws {
        #if os(Linux)
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return }
        let set = Set(flags.split(separator: " ").map(String.init))
        if set.contains("amx_tile") && set.contains("amx_int8") && set.contains("avx512_vnni") && set.contains("avx512bw") {
            #expect(KernelPath.amx.isSupported)
            #expect(simdPaths.contains(.amx))
        }
        #endif
    }

    /// repacked_block_bytes is what ck_repack_sizes allocates per 16-row group and 32-block
    /// (values plus scale planes), for every integer format, MXFP8 and F16; the float formats
    /// store whole 64-row bands (four groups), the others whole groups.
    @Test(arguments: allFormats)
    func repackedBlockBytesMatchAllocation(_ format: WeightFormat) {
        let n = 37, k = format.blockSize == 256 ? 512 : 96
        var qs = 0, dw = 0, mw = 0, dec = 0
        ck_repack_sizes(format.ck, Int64(n), Int64(k), &qs, &dw, &mw, &dec)
        let banded: Set<WeightFormat> = [.mxfp8_e4m3, .mxfp8_e5m2, .f16, .bf16]
        let groups = banded.contains(format) ? 4 : 3   // 37 rows: one band, or three groups
        #expect(ck_repacked_groups(format.ck, Int64(n)) == groups, "\(format)")
        let info = format.info, units = groups * (k / 32)
        #expect(qs == units * Int(info.qs_block_bytes), "\(format)")
        // Q5_0, Q5_1 and Q5_K have no byte layout, only their compact copy (qs_dec).
        #expect(dec == ([.q5_0, .q5_1, .q5_K].contains(format) ? units * Int(CK_Q5_0_COMPACT_BYTES) : 0), "\(format)")
        #expect(qs + dw + mw + dec == units * Int(info.repacked_block_bytes), "\(format)")
    }
}
