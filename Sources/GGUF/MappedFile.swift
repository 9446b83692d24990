#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only memory mapping of a whole file. The mapping lives as long as this object; the
/// bytes never change (PROT_READ, MAP_PRIVATE), so sharing across threads is safe.
public final class MappedFile: @unchecked Sendable {
    /// The mapped bytes; valid until this object is deinitialised.
    public let bytes: UnsafeRawBufferPointer
    public let path: String

    /// Kept open for `read(_:into:)`; closed in deinit.
    private let descriptor: Int32

    public init(path: String) throws(GGUFError) {
        self.path = path
        // Checked before opening: open(2) on a named pipe blocks until a writer appears, and a
        // device or socket is no model either. O_NONBLOCK covers a path swapped in between.
        var st = stat()
        guard stat(path, &st) == 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        if let kind = Self.nonRegularKind(st.st_mode) { throw .cannotOpen(path: path, reason: "not a regular file (\(kind))") }
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard fstat(fd, &st) == 0 else {
            defer { close(fd) }
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        if let kind = Self.nonRegularKind(st.st_mode) {
            close(fd)
            throw .cannotOpen(path: path, reason: "not a regular file (\(kind))")
        }
        let size = Int(st.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            descriptor = fd
            return
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            defer { close(fd) }
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        // The loader walks the tensors once, front to back: a doubled readahead window makes
        // its page faults on a cold page cache read larger pieces.
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        descriptor = fd
    }

    /// What a non-regular file is, for the error message; nil for a regular file.
    private static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a named pipe"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }

    /// Copies the file's bytes `range` into `destination` with pread, which goes through the page
    /// cache without mapping pages into this process (so reading a few embedding rows per token
    /// does not make a 178 MB table resident through fault-around). Falls back to the mapping if
    /// the read fails. `range` must lie inside the file.
    public func read(_ range: Range<Int>, into destination: UnsafeMutableRawPointer) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "read outside the file")
        var done = 0
        while done < range.count {
            let got = pread(descriptor, destination + done, range.count - done, off_t(range.lowerBound + done))
            if got > 0 { done += got; continue }
            if got < 0 && errno == EINTR { continue }
            // EOF or an I/O error on a file we mapped: the mapping still has the bytes.
            destination.copyMemory(from: bytes.baseAddress! + range.lowerBound, byteCount: range.count)
            return
        }
    }

    /// Drops this process's resident pages of the whole mapping (its last partial page too). The
    /// bytes stay readable: the next access maps them again from the page cache. Used once tensors
    /// have been repacked into memory of our own, so the file's copy stops counting towards the
    /// resident set (a model would otherwise be resident twice).
    public func releaseResidentPages() {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        _ = madvise(UnsafeMutableRawPointer(mutating: base), (bytes.count + page - 1) / page * page, Int32(MADV_DONTNEED))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        close(descriptor)
    }
}
