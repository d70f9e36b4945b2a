/// Bytes compared with an ASCII literal without making a `String`: how the
/// Esri JSON decoder classifies keys and the JetStream consumer reads
/// acknowledgement subjects and line prefixes, once per message.
package enum LiteralBytes {
    /// True when `bytes` starts with the literal's bytes.
    @inline(__always)
    package static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        guard bytes.count >= literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            for index in 0..<expected.count where bytes[index] != expected[index] { return false }
            return true
        }
    }

    /// True when `bytes` are the literal's bytes.
    @inline(__always)
    package static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && hasPrefix(UnsafeRawBufferPointer(bytes), literal)
    }
}
