import EntityStreamModel
/// Which columns (or attributes) of a feature file play which part, as a
/// command line gives it (`--columns`): `x=lon,y=lat,time=datetime_utc,end=…,track=storm_id,oid=…`.
///
/// Every key is optional:
/// - `x`, `y`: the coordinate columns of a CSV (both or neither). Without
///   them a CSV's columns named `x`/`lon`/`long`/`longitude`/`lng` and
///   `y`/`lat`/`latitude` are used when both exist; otherwise the CSV is a
///   table. JSON formats carry their geometry themselves.
/// - `time`: the start (or instant) time field; its values become
///   `esriFieldTypeDate`. `time=none` makes the layer not time-aware.
///   Without it, the first date field is the time field.
/// - `end`: the end time field of interval features.
/// - `track`: the track-id field (`timeInfo.trackIdField`).
/// - `oid`: an integer field whose unique values are the object ids; without
///   it a field declared `esriFieldTypeOID` is used, or `OBJECTID` is added
///   with 1, 2, 3… in file order.
/// - `wkid`: the spatial reference (its code) of coordinates that name none
///   (default: the file's own, else 4326); set by `--in-sr`. The key
///   `wkid=N` is still read, deprecated, as is `id=` for `track=`
///   (``deprecatedKeys(in:)``).
/// ``init(parsing:)`` throws ``CSVError`` naming the bad pair, key or value. A plain value.
public struct FeatureColumnMapping: Sendable, Hashable {
    public var x: String?
    public var y: String?
    public var time: String?
    /// True for `time=none`: no time field even if the data has dates.
    public var noTime: Bool
    public var end: String?
    public var track: String?
    public var objectID: String?
    public var wkid: Int?

    /// The keys ``init(parsing:)`` accepts, in the order messages list them
    /// (the last two deprecated: `id` for `track`, `wkid` for `--in-sr`).
    public static let keys = ["x", "y", "time", "end", "track", "oid", "id", "wkid"]

    public init(x: String? = nil, y: String? = nil, time: String? = nil, noTime: Bool = false, end: String? = nil,
                track: String? = nil, objectID: String? = nil, wkid: Int? = nil) {
        self.x = x
        self.y = y
        self.time = time
        self.noTime = noTime
        self.end = end
        self.track = track
        self.objectID = objectID
        self.wkid = wkid
    }

    /// Parses `key=column,…` (see the type's contract).
    public init(parsing text: String) throws(CSVError) {
        let values = try ColumnMappingPairs.parse(text, keys: Self.keys)
        if values["id"] != nil, values["track"] != nil { throw CSVError(.trackAndID) }
        self.init(x: values["x"], y: values["y"], end: values["end"], track: values["track"] ?? values["id"], objectID: values["oid"])
        if let time = values["time"] {
            if Schema.fold(time) == "none" { noTime = true } else { self.time = time }
        }
        if let text = values["wkid"] {
            guard let wkid = Int(text), wkid > 0, wkid <= Int(Int32.max) else {
                throw CSVError(.badWKID(text))
            }
            self.wkid = wkid
        }
        guard (x == nil) == (y == nil) else {
            throw CSVError(.oneCoordinate(given: x == nil ? "y" : "x", missing: x == nil ? "x" : "y"))
        }
        if noTime, end != nil { throw CSVError(.noTimeWithEnd) }
    }

    /// The deprecated keys `text` uses (`id`, `wkid`), for a warning.
    public static func deprecatedKeys(in text: String) -> [String] {
        guard let values = try? ColumnMappingPairs.parse(text, keys: keys) else { return [] }
        return ["id", "wkid"].filter { values[$0] != nil }
    }

    /// True when nothing is mapped.
    public var isEmpty: Bool { self == FeatureColumnMapping() }

    /// The text form accepted by ``init(parsing:)``.
    public var text: String {
        var pairs: [String] = []
        if let x { pairs.append("x=\(x)") }
        if let y { pairs.append("y=\(y)") }
        if noTime { pairs.append("time=none") } else if let time { pairs.append("time=\(time)") }
        if let end { pairs.append("end=\(end)") }
        if let track { pairs.append("track=\(track)") }
        if let objectID { pairs.append("oid=\(objectID)") }
        if let wkid { pairs.append("wkid=\(wkid)") }
        return pairs.joined(separator: ",")
    }
}
