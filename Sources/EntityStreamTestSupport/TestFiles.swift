import Foundation

/// Files and text that tests write themselves, as oracles independent of
/// the code under test.
public enum TestFiles {
    /// Writes `bytes` to a fresh file in the temporary directory and
    /// returns its path (`PREFIX-UUID.SUFFIX`); the caller removes it.
    public static func temporary(_ bytes: [UInt8], prefix: String, suffix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).\(suffix)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `text` as a JSON string literal, escaped by hand (quote, backslash,
    /// line feed and tab; every other character as it is), so a test's JSON
    /// does not come from the writer it checks.
    public static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
