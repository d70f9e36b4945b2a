import EntityStreamModel
/// Field names a REST client can name: a CSV header such as
/// `Population Estimate, 2013` cannot appear in `outFields` (commas split
/// it) or a where clause, so a loaded column gets a valid name and keeps its
/// header as the alias, as ArcGIS does when it publishes a CSV.
///
/// A valid name starts with an ASCII letter or `_` and holds only ASCII
/// letters, digits and `_`, at most 64 characters. ``validName(_:)`` keeps a
/// valid name as it is; otherwise each run of other characters becomes one
/// `_` (trimmed at both ends), a leading digit gets `F_` in front, and an
/// empty result is `F`. ``validNames(_:)`` also makes the names unique
/// (ASCII case-insensitively) by appending `_2`, `_3`, …. Pure functions.
public enum FieldNaming {
    public static let maximumLength = 64

    public static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= maximumLength else { return false }
        guard isLetter(first) || first == UInt8(ascii: "_") else { return false }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    public static func validName(_ header: String) -> String {
        if isValid(header) { return header }
        var bytes: [UInt8] = []
        var pendingSeparator = false
        for byte in header.utf8 {
            if isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") {
                if pendingSeparator && !bytes.isEmpty { bytes.append(UInt8(ascii: "_")) }
                pendingSeparator = false
                bytes.append(byte)
            } else {
                pendingSeparator = true
            }
        }
        if bytes.isEmpty { return "F" }
        if isDigit(bytes[0]) { bytes.insert(contentsOf: Array("F_".utf8), at: 0) }
        if bytes.count > maximumLength { bytes.removeSubrange(maximumLength...) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Valid, unique names for `headers`, in order.
    public static func validNames(_ headers: [String]) -> [String] {
        var used = Set<String>()
        var result: [String] = []
        for header in headers {
            let base = validName(header)
            var name = base
            var suffix = 2
            while used.contains(Schema.fold(name)) {
                let tail = "_\(suffix)"
                name = String(base.prefix(maximumLength - tail.count)) + tail
                suffix += 1
            }
            used.insert(Schema.fold(name))
            result.append(name)
        }
        return result
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
