/// Turns any text (a service name, a track id) into one valid NATS subject
/// token and back.
///
/// A NATS subject is `.`-separated tokens; a token may not be empty, may not
/// contain `.`, whitespace or control characters, and `*` and `>` are
/// wildcards. Letters, digits, `-` and `_` are kept; every other byte of the
/// UTF-8 text (and `~` itself) becomes `~` and two upper-case hex digits, so
/// the encoding is reversible and two different ids never share a token.
/// The empty text is `~`. Text longer than ``maximumBytes`` keeps its first
/// bytes and ends with `~~` and the 16 hex digits of its FNV-1a 64 hash (no
/// longer reversible, still distinct in practice), so a subject stays within
/// the server's limits whatever the id.
public enum SubjectToken {
    /// Bytes of text encoded in full; beyond this, the text is shortened.
    public static let maximumBytes = 160

    public static func encode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        if bytes.isEmpty { return "~" }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        let kept = bytes.count > maximumBytes ? bytes[..<maximumBytes] : bytes[...]
        for byte in kept { append(byte, to: &output) }
        if bytes.count > maximumBytes {
            output.append(contentsOf: Array("~~".utf8))
            output.append(contentsOf: Array(hex64(FNV.hash64(bytes)).utf8))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The text a token was made from; nil for a token that ``encode(_:)``
    /// cannot have made (or a shortened one).
    public static func decode(_ token: String) -> String? {
        if token == "~" { return "" }
        let bytes = Array(token.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "~") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                output.append(high << 4 | low)
                index += 3
            } else if isKept(byte) {
                output.append(byte)
                index += 1
            } else {
                return nil
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    private static let digits = Array("0123456789ABCDEF".utf8)

    private static func append(_ byte: UInt8, to output: inout [UInt8]) {
        if isKept(byte) {
            output.append(byte)
        } else {
            output.append(UInt8(ascii: "~"))
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 15)])
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func hex64(_ value: UInt64) -> String {
        var output = [UInt8](repeating: UInt8(ascii: "0"), count: 16)
        var rest = value
        for index in stride(from: 15, through: 0, by: -1) {
            output[index] = digits[Int(rest & 15)]
            rest >>= 4
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// FNV-1a hashes: 32-bit as nats-server's subject-mapping `partition()`
/// function uses, 64-bit for message ids.
public enum FNV {
    public static func hash32<Bytes: Sequence>(_ bytes: Bytes, into start: UInt32 = 2_166_136_261) -> UInt32 where Bytes.Element == UInt8 {
        var hash = start
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }

    public static func hash64<Bytes: Sequence>(_ bytes: Bytes, into start: UInt64 = 14_695_981_039_346_656_037) -> UInt64
    where Bytes.Element == UInt8 {
        var hash = start
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 1_099_511_628_211
        }
        return hash
    }

    /// Continues a 64-bit hash over raw bytes.
    public static func hash64(_ buffer: UnsafeRawBufferPointer?, into start: UInt64) -> UInt64 {
        guard let buffer else { return start }
        var hash = start
        for byte in buffer {
            hash ^= UInt64(byte)
            hash = hash &* 1_099_511_628_211
        }
        return hash
    }
}
