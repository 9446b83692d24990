// libFuzzer target: the CLI's argument parser (Sources/quanta/Arguments.swift) with the option
// sets of `generate` and `inspect`. The input is argv, NUL-separated. Every outcome must be
// parsed values or a UsageError; numbers must come back inside their ranges.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let argv = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    let valued: Set<String> = ["--model", "-m", "--threads", "-t", "--ctx", "-c", "--weights", "--kv", "--prompt", "-p",
                               "-n", "--n-predict", "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty", "--seed"]
    if let args = try? Arguments(argv, valued: valued, flags: ["--ids"]) {
        _ = args.string("--prompt", "-p")
        _ = args.has("--ids")
        if let n = try? args.int("-n", "--n-predict", default: 64, range: 1...1_000_000), !(1...1_000_000).contains(n) {
            fatalError("-n \(n) outside its range")
        }
        if let t = try? args.float("--temp", default: 0, range: 0...100), !(0...100).contains(t) {
            fatalError("--temp \(t) outside its range")
        }
        _ = try? args.int("--seed", default: 0, range: 0...Int.max)
        if !args.positional.isEmpty { fatalError("positional arguments accepted: \(args.positional)") }
    }
    if let args = try? Arguments(argv, valued: [], flags: ["--json", "-h", "--help"], maxPositional: 1), args.positional.count > 1 {
        fatalError("more than one path accepted")
    }
    return 0
}
