import EntityStreamCore

/// Which CSV columns hold a track's id, time and position, as given on the
/// command line: `--csv id=vehicle_id,time=timestamp,x=longitude,y=latitude`.
///
/// A plain value. ``init(parsing:)`` accepts the four keys `id`, `time`, `x`,
/// `y` (ASCII case-insensitive) in any order, each exactly once, as
/// comma-separated `key=column` pairs; spaces around keys and column names
/// are ignored; a column name may itself contain `=` (the first `=` splits).
/// The four columns must be different (compared ASCII case-insensitively,
/// as header names are). Column names are matched against the CSV header
/// ASCII case-insensitively.
public struct CSVColumnMapping: Sendable, Hashable {
    /// The track-id column.
    public var id: String
    /// The time column (ISO-8601, `YYYY-MM-DD HH:MM:SS` UTC, or epoch seconds/milliseconds).
    public var time: String
    /// The longitude column (WGS84 degrees).
    public var x: String
    /// The latitude column (WGS84 degrees).
    public var y: String

    public init(id: String, time: String, x: String, y: String) {
        self.id = id
        self.time = time
        self.x = x
        self.y = y
    }

    /// Parses "id=vehicle_id,time=timestamp,x=longitude,y=latitude".
    /// - Throws: ``CSVTrackError`` naming the missing, unknown or repeated key,
    ///   the malformed pair, or the column named twice.
    public init(parsing text: String) throws(CSVTrackError) {
        var values: [String: String] = [:]
        let keys = ["id", "time", "x", "y"]
        let trimmed = Self.trim(Substring(text))
        guard !trimmed.isEmpty else {
            throw CSVTrackError("empty column mapping; expected id=…,time=…,x=…,y=…")
        }
        for pair in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else {
                throw CSVTrackError("malformed pair '\(pair)' in column mapping; expected key=column")
            }
            let key = Schema.fold(String(Self.trim(pair[..<equals])))
            let column = Self.trim(pair[pair.index(after: equals)...])
            guard !key.isEmpty, !column.isEmpty else {
                throw CSVTrackError("malformed pair '\(pair)' in column mapping; expected key=column")
            }
            guard keys.contains(key) else {
                throw CSVTrackError("unknown key '\(Self.trim(pair[..<equals]))' in column mapping; the keys are id, time, x and y")
            }
            guard values[key] == nil else {
                throw CSVTrackError("key '\(key)' is given twice in column mapping")
            }
            values[key] = String(column)
        }
        let missing = keys.filter { values[$0] == nil }
        if !missing.isEmpty {
            let list = missing.map { "'\($0)'" }.joined(separator: ", ")
            throw CSVTrackError("column mapping is missing key\(missing.count > 1 ? "s" : "") \(list); all of id, time, x and y are required")
        }
        self.init(id: values["id"] ?? "", time: values["time"] ?? "", x: values["x"] ?? "", y: values["y"] ?? "")
        try validate()
    }

    /// Checks that the four columns are named and different.
    /// - Throws: ``CSVTrackError`` naming an empty or repeated column.
    public func validate() throws(CSVTrackError) {
        let named = [("id", id), ("time", time), ("x", x), ("y", y)]
        for (key, column) in named where Self.trim(Substring(column)).isEmpty {
            throw CSVTrackError("column mapping gives no column for '\(key)'")
        }
        for i in named.indices {
            for j in named.indices where j > i && Self.fold(named[i].1) == Self.fold(named[j].1) {
                throw CSVTrackError("'\(named[i].0)' and '\(named[j].0)' both name column '\(named[i].1)'; id, time, x and y must be different columns")
            }
        }
    }

    /// The text form accepted by ``init(parsing:)``.
    public var text: String { "id=\(id),time=\(time),x=\(x),y=\(y)" }

    static func trim(_ text: Substring) -> Substring {
        var result = text
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }

    static func fold(_ name: String) -> String {
        Schema.fold(String(trim(Substring(name))))
    }
}
