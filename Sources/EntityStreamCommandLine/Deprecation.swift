#if canImport(Glibc)
import Glibc
#endif
import EntityStreamLocking

/// Warnings about deprecated spellings (old flags and mapping keys that are
/// still read as their replacements): one line on stderr per spelling and
/// process, never on stdout. Thread-safe.
public enum Deprecation {
    private static let warned = LockedState<Set<String>>([])

    /// Writes `program: warning: message` on stderr, once per message.
    public static func warn(program: String, _ message: String) {
        guard warned.withLock({ $0.insert(message).inserted }) else { return }
        let line = Array("\(program): warning: \(message)\n".utf8)
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
