import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures

/// Which CSV columns hold a track's id, time and position, as given on the
/// command line: `--columns track=vehicle_id,time=timestamp,x=longitude,y=latitude`.
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
    /// - Throws: ``CSVError`` naming the missing, unknown or repeated key,
    ///   the malformed pair, or the column named twice.
    public init(parsing text: String) throws(CSVError) {
        let keys = ["id", "time", "x", "y"]
        let values = try ColumnMappingPairs.parse(text, keys: keys)
        let missing = keys.filter { values[$0] == nil }
        if !missing.isEmpty {
            throw CSVError(.missingKeys(missing))
        }
        self.init(id: values["id"] ?? "", time: values["time"] ?? "", x: values["x"] ?? "", y: values["y"] ?? "")
        try validate()
    }

    /// Checks that the four columns are named and different.
    /// - Throws: ``CSVError`` naming an empty or repeated column.
    public func validate() throws(CSVError) {
        let named = [("id", id), ("time", time), ("x", x), ("y", y)]
        for (key, column) in named where Self.trim(Substring(column)).isEmpty {
            throw CSVError(.noColumnForKey(key))
        }
        for i in named.indices {
            for j in named.indices where j > i && Self.fold(named[i].1) == Self.fold(named[j].1) {
                throw CSVError(.sameColumn(named[i].0, named[j].0, column: named[i].1))
            }
        }
    }

    /// The text form accepted by ``init(parsing:)``.
    public var text: String { "id=\(id),time=\(time),x=\(x),y=\(y)" }

    static func trim(_ text: Substring) -> Substring {
        CSVNumber.trim(text)
    }

    static func fold(_ name: String) -> String {
        Schema.fold(String(trim(Substring(name))))
    }
}
