import EntityStreamModel
/// The `key=column,key=column` text of a command-line column mapping
/// (`--columns track=vehicle_id,time=timestamp,…`), split into its pairs.
///
/// Pairs are comma-separated; the first `=` of a pair splits it (a column
/// name may contain `=`); spaces and tabs around keys and columns are
/// ignored; keys compare ASCII case-insensitively and are returned folded.
/// ``parse(_:keys:)`` throws ``CSVError`` (no line) naming the empty text,
/// a malformed pair, an unknown key or a key given twice. Stateless.
public enum ColumnMappingPairs {
    /// The pairs of `text` as folded key → column. `keys` are the allowed
    /// keys (lowercase), in the order error messages list them.
    public static func parse(_ text: String, keys: [String]) throws(CSVError) -> [String: String] {
        var values: [String: String] = [:]
        let trimmed = CSVNumber.trim(Substring(text))
        guard !trimmed.isEmpty else {
            throw CSVError(.emptyMapping(keys: keys))
        }
        for pair in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else {
                throw CSVError(.malformedPair(String(pair)))
            }
            let key = Schema.fold(String(CSVNumber.trim(pair[..<equals])))
            let column = CSVNumber.trim(pair[pair.index(after: equals)...])
            guard !key.isEmpty, !column.isEmpty else {
                throw CSVError(.malformedPair(String(pair)))
            }
            guard keys.contains(key) else {
                throw CSVError(.unknownKey(String(CSVNumber.trim(pair[..<equals])), keys: keys))
            }
            guard values[key] == nil else {
                throw CSVError(.repeatedKey(key))
            }
            values[key] = String(column)
        }
        return values
    }

    /// "a, b and c".
    public static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + (words.last ?? "")
    }
}
