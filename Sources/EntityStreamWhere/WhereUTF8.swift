/// Zero-copy access to a string's UTF-8 bytes, shared by LIKE matching and
/// binary string comparison.
enum WhereUTF8 {
    /// Calls `body` with the UTF-8 bytes of `string`; native strings are not
    /// copied (small strings are spilled to the stack by the standard library).
    @inline(__always)
    static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = string
        return copy.withUTF8(body)
    }
}
