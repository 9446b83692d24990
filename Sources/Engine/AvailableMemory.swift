#if canImport(Glibc)
import Glibc
#endif

/// How much more memory this process can take without being swapped out or killed: the kernel's
/// MemAvailable estimate, lowered to the headroom under the cgroup v2 limit when the process runs
/// in a memory-limited container. Read fresh on every call (it changes as other processes run).
enum AvailableMemory {
    static func bytes() -> Int {
        var available = meminfoAvailable() ?? Int.max
        if let limit = readNumber("/sys/fs/cgroup/memory.max"), let used = readNumber("/sys/fs/cgroup/memory.current") {
            available = min(available, max(0, limit - used))
        }
        return available
    }

    /// `MemAvailable:` of /proc/meminfo, in bytes.
    private static func meminfoAvailable() -> Int? {
        guard let text = readText("/proc/meminfo") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let kilobytes = line.dropFirst("MemAvailable:".count).split(separator: " ").first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }

    /// A file holding one decimal number ("max" and missing files give nil).
    private static func readNumber(_ path: String) -> Int? {
        readText(path).flatMap { Int($0.split(separator: "\n").first ?? "") }
    }

    private static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
