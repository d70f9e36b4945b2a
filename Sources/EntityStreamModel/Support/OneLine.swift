/// Any text — an error, an HTTP body excerpt — as one printable line, so
/// that every failure is exactly one line on stderr or in a JSON member.
///
/// ``text(_:maximumLength:)`` turns every run of whitespace and control
/// characters (line breaks of every kind included: CR, LF, NEL, U+2028,
/// U+2029) into one space, trims both ends, and cuts the result after
/// `maximumLength` characters, ending it with `…`. Stateless.
public enum OneLine {
    /// The default longest line, in characters.
    public static let defaultMaximumLength = 500

    public static func text(_ text: String, maximumLength: Int = defaultMaximumLength) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        var kept = 0
        for scalar in text.unicodeScalars {
            if isSeparator(scalar) {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                result.append(" ")
                kept += 1
                pendingSpace = false
            }
            if kept >= maximumLength {
                result.append("…")
                return String(result)
            }
            result.append(scalar)
            kept += 1
        }
        return String(result)
    }

    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0...0x20, 0x7F...0xA0, 0x2028, 0x2029, 0xFEFF: return true
        default: return false
        }
    }

    /// The longest error text an output line carries, in UTF-8 bytes (as stderr's lines).
    public static let maximumErrorBytes = 2000

    /// `text` as it is when it has at most `maximumBytes` UTF-8 bytes; else
    /// its first whole characters within them, then `… (N bytes in all)`: an
    /// error quoting a huge input (a description's 300,000 field names) stays
    /// a line a reader can take.
    public static func bounded(_ text: String, maximumBytes: Int = maximumErrorBytes) -> String {
        let count = text.utf8.count
        guard count > maximumBytes else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > maximumBytes { break }
            kept.append(character)
            used += size
        }
        return kept + "… (\(count) bytes in all)"
    }
}
