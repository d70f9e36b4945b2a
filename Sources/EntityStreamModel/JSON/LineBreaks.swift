#if canImport(Glibc)
import Glibc
#endif

extension UnsafeRawBufferPointer {
    /// True when the bytes hold a line feed or a carriage return: such text
    /// cannot stand as one line of a JSON-lines output or a recording.
    package var containsLineBreak: Bool {
        guard let base = baseAddress, count > 0 else { return false }
        return memchr(base, Int32(ASCII.newline), count) != nil || memchr(base, Int32(ASCII.carriageReturn), count) != nil
    }
}
