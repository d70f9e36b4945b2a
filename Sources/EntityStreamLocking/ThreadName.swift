#if canImport(Glibc)
import Glibc
#endif

/// Names the calling thread as the system sees it (`/proc/…/comm`, `top -H`,
/// `perf`). Linux keeps at most 15 bytes and refuses a longer name outright
/// (which is why a long `Thread.name` shows nowhere), so the name is cut to
/// its first 15 bytes. Written through `/proc/thread-self/comm` (glibc's
/// `pthread_setname_np` is not visible to Swift). Call it first thing in a
/// thread's body; failures are ignored (a name is a diagnostic aid).
public enum ThreadName {
    public static func setCurrent(_ name: String) {
        let bytes = Array(name.utf8.prefix(15))
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The calling thread's system name.
    public static var current: String {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return "" }
        return String(decoding: buffer.prefix(count).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
