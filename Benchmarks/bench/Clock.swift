#if canImport(Glibc)
import Glibc
#endif

/// Monotonic seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Peak resident set size of this process so far, in MiB (Linux reports ru_maxrss in KiB).
func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// Unbuffered write to stderr (progress lines), avoiding the C `stderr` global.
func printError(_ text: String) {
    var text = text
    text.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
}

/// Mean and sample standard deviation.
func meanAndStddev(_ xs: [Double]) -> (mean: Double, stddev: Double) {
    let mean = xs.reduce(0, +) / Double(xs.count)
    guard xs.count > 1 else { return (mean, 0) }
    let variance = xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(xs.count - 1)
    return (mean, variance.squareRoot())
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

/// `x` with `digits` decimals.
func fixed(_ x: Double, _ digits: Int = 2) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (abs(x) * scale).rounded()
    let whole = Int(r / scale), frac = Int(r.truncatingRemainder(dividingBy: scale))
    let fracText = String(frac)
    let padded = digits == 0 ? "" : "." + String(repeating: "0", count: digits - fracText.count) + fracText
    return (x < 0 ? "-" : "") + "\(whole)" + padded
}
