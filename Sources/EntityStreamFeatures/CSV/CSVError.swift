import EntityStreamModel

/// Why a CSV text, or a column mapping for one, was rejected: where (the
/// line) and what is wrong (``reason``).
///
/// `line` is the 1-based physical line of the CSV text where the offending
/// record starts (the header is line 1), or nil when the problem is not about
/// a data line (the mapping text, a missing header column). The line is kept
/// beside the reason, not in each case, because it is where the problem was
/// found, not what it is: the same reason (a short record, a bad number) is
/// raised at any line, and a chunked scan re-bases the line to the file's
/// without looking at the reason. ``description`` prefixes the line:
/// "line 7: …". A plain value.
public struct CSVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in the words a user can act on (naming the column, key or value concerned).
    public var reason: Reason
    public var line: Int?

    public init(_ reason: Reason, line: Int? = nil) {
        self.reason = reason
        self.line = line
    }

    public var description: String {
        if let line { return "line \(line): \(reason)" }
        return reason.description
    }

    /// What is wrong with a CSV text or a column mapping, by case.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        // MARK: The text

        /// The text has no header row.
        case emptyText
        /// Header column `column` (1-based) has no name.
        case headerColumnWithoutName(column: Int)
        /// The header names a column twice (case-insensitively).
        case headerColumnTwice(String)
        /// A quoted field is never closed (the line is where it opened).
        case unclosedQuote
        /// A character follows a closing quote inside a field.
        case characterAfterClosingQuote
        /// A record has another number of fields than the header.
        case fieldCount(expected: Int, found: Int)
        /// The mapped column (its name, and its role: "x", "y", "time") is not in the header, whose columns follow.
        case missingColumn(String, role: String, columns: [String])
        /// A coordinate column (its key and name) is empty while the other coordinate is not.
        case coordinateEmptyBesideOther(key: String, column: String)
        /// A coordinate column (its key and name) of a track row is empty.
        case coordinateEmpty(key: String, column: String)
        /// A coordinate column (its key and name) holds text that is not a number.
        case notANumber(key: String, column: String, text: String)
        /// The time column of a track row is empty.
        case timeEmpty(column: String)
        /// A time column of a feature file holds text that is not a time.
        case unreadableTime(column: String, text: String)
        /// The time column of a track recording holds text that is not a time.
        case unreadableTrackTime(column: String, text: String)
        /// A row the table builder refused (its own error).
        case row(FeatureTableError)
        /// A track CSV with a header and no row.
        case noPositions
        /// A `--track-field` that is not one of the columns.
        case unknownTrackField(String, columns: [String])

        // MARK: The column mapping

        /// The mapping text is empty; `keys` are those it may give.
        case emptyMapping(keys: [String])
        /// A pair that is not `key=column`.
        case malformedPair(String)
        /// A key (as given) that is not one of `keys`.
        case unknownKey(String, keys: [String])
        /// A key given twice.
        case repeatedKey(String)
        /// Both `track=` and its old name `id=`.
        case trackAndID
        /// A `wkid=` that is not a positive 32-bit whole number.
        case badWKID(String)
        /// One coordinate column (`x` or `y`) without the other.
        case oneCoordinate(given: String, missing: String)
        /// `time=none` with an end time field.
        case noTimeWithEnd
        /// A track mapping without these of track, time, x and y.
        case trackColumnsMissing([String])
        /// A recording mapping without these of id, time, x and y.
        case missingKeys([String])
        /// A recording mapping key with a blank column.
        case noColumnForKey(String)
        /// Two recording mapping keys naming the same column.
        case sameColumn(String, String, column: String)

        public var description: String {
            switch self {
            case .emptyText: return "the CSV text is empty: a header row naming the columns is required"
            case .headerColumnWithoutName(let column): return "header column \(column) has no name"
            case .headerColumnTwice(let name): return "header names column '\(name)' twice"
            case .unclosedQuote: return "quoted field opened here is never closed"
            case .characterAfterClosingQuote: return "unexpected character after a closing quote (a quote inside a quoted field must be doubled)"
            case .fieldCount(let expected, let found): return "expected \(expected) fields as in the header, found \(found)"
            case .missingColumn(let name, let role, let columns):
                return "the header has no column '\(name)' (mapped as \(role)); its columns are: \(columns.joined(separator: ", "))"
            case .coordinateEmptyBesideOther(let key, let column): return "\(key) column '\(column)' is empty while the other coordinate is not"
            case .coordinateEmpty(let key, let column): return "\(key) column '\(column)' is empty"
            case .notANumber(let key, let column, let text): return "\(key) column '\(column)': '\(text)' is not a number"
            case .timeEmpty(let column): return "time column '\(column)' is empty"
            case .unreadableTime(let column, let text):
                return "time column '\(column)': cannot read '\(text)' as a time (expected e.g. 2000-09-01T00:00:00Z, 2000-09-01 06:00:00 as UTC, "
                    + "or epoch seconds or milliseconds)"
            case .unreadableTrackTime(let column, let text):
                return "time column '\(column)': cannot read '\(text)' as a time (expected e.g. 2016-11-24T00:00:51-06:00, 2016-11-24 06:00:51 as UTC, "
                    + "or epoch seconds or milliseconds)"
            case .row(let error): return error.description
            case .noPositions: return "the CSV holds a header but no positions"
            case .unknownTrackField(let field, let columns): return "--track-field '\(field)' is not one of its columns (\(columns.joined(separator: ", ")))"
            case .emptyMapping(let keys): return "empty column mapping; expected \(keys.map { "\($0)=…" }.joined(separator: ","))"
            case .malformedPair(let pair): return "malformed pair '\(pair)' in column mapping; expected key=column"
            case .unknownKey(let key, let keys): return "unknown key '\(key)' in column mapping; the keys are \(ColumnMappingPairs.list(keys))"
            case .repeatedKey(let key): return "key '\(key)' is given twice in column mapping"
            case .trackAndID: return "column mapping gives both track= and id= (the same key; use track=)"
            case .badWKID(let text): return "wkid '\(text)' in column mapping is not a spatial reference id (a positive whole number)"
            case .oneCoordinate(let given, let missing):
                return "column mapping names \(given) without \(missing); give both coordinate columns or neither"
            case .noTimeWithEnd: return "column mapping has time=none and an end time field"
            case .trackColumnsMissing(let keys):
                return "a CSV of tracks needs the columns track, time, x and y; missing \(ColumnMappingPairs.list(keys.map { "\($0)=" }))"
            case .missingKeys(let keys):
                return "column mapping is missing key\(keys.count > 1 ? "s" : "") \(keys.map { "'\($0)'" }.joined(separator: ", ")); "
                    + "all of id, time, x and y are required"
            case .noColumnForKey(let key): return "column mapping gives no column for '\(key)'"
            case .sameColumn(let first, let second, let column):
                return "'\(first)' and '\(second)' both name column '\(column)'; id, time, x and y must be different columns"
            }
        }
    }
}
