import EntityStreamCore
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamModel

/// One point to identify: x and y in a spatial reference (nil: the
/// request's default — `--sr`, the command's `sr`, else the raster's own
/// CRS), and what its answer echoes: the stdin line it came from and the
/// `id` it was given.
///
/// Parsed from `{"x":…,"y":…,"sr":…,"id":…}` (stdin lines of `entitystream
/// identify`, the `points` of the `identify` control command): `x` and `y`
/// finite numbers, `sr` (or `inSR`, ArcGIS's name) a spatial reference (a
/// WKID, or `{"wkid":n}` / `{"latestWkid":n}` / `{"wkt":"…"}` as Esri JSON
/// spells it; null or absent: the default), checked with PROJ; `id` any
/// string or number; any other member is refused by name. A value type;
/// `Sendable`.
public struct IdentifyPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var spatialReference: SpatialReference?
    /// The input line (1-based), echoed as `line`.
    public var line: Int?
    /// The caller's id for the point, echoed as `point.id`.
    public var id: JSONValue?

    /// The members a point object may have.
    public static let members: Set<String> = ["x", "y", "sr", "inSR", "id"]
    /// The largest WKID accepted (WKIDs are 32-bit, Esri's own ids are 6 digits).
    public static let maximumWKID = 999_999

    public init(x: Double, y: Double, spatialReference: SpatialReference? = nil, line: Int? = nil, id: JSONValue? = nil) {
        self.x = x
        self.y = y
        self.spatialReference = spatialReference
        self.line = line
        self.id = id
    }

    /// Parses one JSON line (line number `line`, echoed on the answer).
    public init(jsonLine bytes: [UInt8], line: Int) throws(IdentifyPointError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw .notJSON(line: line, error)
        }
        guard let object = value.objectValue else {
            throw .notAnObject(line: line)
        }
        do { try self.init(object: object) } catch { throw .onLine(line, error) }
        self.line = line
    }

    /// Parses a point object; the error names the member at fault.
    public init(object: JSONObject) throws(IdentifyPointError) {
        if let unknown = object.keys.first(where: { !Self.members.contains($0) }) {
            throw .unknownMember(unknown)
        }
        guard let x = object["x"], !x.isNull else { throw .missing("x") }
        guard let y = object["y"], !y.isNull else { throw .missing("y") }
        self.x = try Self.coordinate(x, "x")
        self.y = try Self.coordinate(y, "y")
        if object["sr"] != nil, object["inSR"] != nil { throw .inSRAndSR }
        self.spatialReference = object["inSR"] != nil ? try Self.spatialReference(object["inSR"], "inSR") : try Self.spatialReference(object["sr"], "sr")
        self.line = nil
        switch object["id"] {
        case nil, .null?: self.id = nil
        case .string?, .int?, .double?: self.id = object["id"]
        case let other?: throw .invalidID(other)
        }
    }

    static func coordinate(_ value: JSONValue, _ name: String) throws(IdentifyPointError) -> Double {
        guard let number = value.doubleValue, number.isFinite else {
            throw .notAFiniteNumber(name, value)
        }
        return number
    }

    /// A spatial reference given as a WKID or an Esri spatial reference
    /// object, checked with PROJ; nil for absent or null.
    public static func spatialReference(_ value: JSONValue?, _ name: String) throws(IdentifyPointError) -> SpatialReference? {
        guard let value else { return nil }
        do { return try SpatialReference.parse(json: value) } catch { throw .invalidSpatialReference(name, error) }
    }
}

/// Why a point could not be read, by what was wrong; the message names the line or member.
public indirect enum IdentifyPointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input line is not JSON (the parser's error).
    case notJSON(line: Int, JSONError)
    /// The input line is JSON but not an object.
    case notAnObject(line: Int)
    /// The point object on input line `line` is wrong.
    case onLine(Int, IdentifyPointError)
    /// A member a point does not have.
    case unknownMember(String)
    /// `x` or `y` is missing (or null).
    case missing(String)
    /// Both `inSR` and `sr` are given.
    case inSRAndSR
    /// `id` is neither a string nor a number.
    case invalidID(JSONValue)
    /// A coordinate (named) is not a finite number.
    case notAFiniteNumber(String, JSONValue)
    /// A spatial reference member (named) that cannot be read or PROJ does not know (PROJ's error).
    case invalidSpatialReference(String, ProjectionError)

    public var description: String {
        switch self {
        case .notJSON(let line, let error): return "line \(line): not JSON: \(error.description)"
        case .notAnObject(let line): return "line \(line): expected an object {\"x\":…,\"y\":…,\"sr\":…}"
        case .onLine(let line, let error): return "line \(line): \(error.description)"
        case .unknownMember(let name): return "unknown member '\(name)' (expected x, y, inSR, id)"
        case .missing(let name): return "missing \"\(name)\""
        case .inSRAndSR: return "give \"inSR\" or \"sr\", not both"
        case .invalidID(let value): return "\"id\" must be a string or a number, not \(value)"
        case .notAFiniteNumber(let name, let value): return "\"\(name)\" must be a finite number, not \(value)"
        case .invalidSpatialReference(let name, let error): return "\"\(name)\": \(error.description)"
        }
    }
}
