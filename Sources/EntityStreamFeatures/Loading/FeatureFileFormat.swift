import EntityStreamModel
import EntityStreamCore
/// The file formats a ``FeatureTable`` can be loaded from, and how a file's
/// format is recognised from its first bytes (``sniff(_:fileName:)``).
///
/// Names (``name``, ``init(name:)``) are what a command line forces a format
/// with: `csv`, `esri-lines`, `esri-array`, `esri-featureset`, `geojson`,
/// `geojsonseq`, `recording`. Stateless.
public enum FeatureFileFormat: String, Sendable, Hashable, CaseIterable {
    /// CSV with a header row (coordinates in columns, or none: a table).
    case csv
    /// One Esri JSON feature per line (`{"geometry":…,"attributes":…}`).
    case esriFeatureLines = "esri-lines"
    /// One JSON array of Esri features.
    case esriFeatureArray = "esri-array"
    /// An Esri FeatureSet object: `{"fields":…,"features":[…]}` (what a query answers).
    case esriFeatureSet = "esri-featureset"
    /// A GeoJSON FeatureCollection (or one Feature), WGS84.
    case geoJSON = "geojson"
    /// GeoJSON text sequence: one Feature per line (RFC 8142 record separators allowed).
    case geoJSONSeq = "geojsonseq"
    /// What `entitystream record` writes: a header line with the service description, then messages.
    case recording

    /// The command-line name.
    public var name: String { rawValue }

    /// A format by its command-line name (case-insensitive), or nil.
    public init?(name: String) {
        self.init(rawValue: Schema.fold(name.trimmingSpaces))
    }

    /// Every command-line name, for messages: "csv, esri-lines, …".
    public static var names: String { allCases.map(\.name).joined(separator: ", ") }

    /// Recognises the format from the text itself (the file name only breaks
    /// the tie for text that is neither JSON nor clearly CSV):
    /// - a record separator (0x1E) first → GeoJSON text sequence;
    /// - `[` first → an Esri feature array;
    /// - `{` first: the first line read as one JSON object decides — a
    ///   recording header, a GeoJSON `Feature` (sequence) or
    ///   `FeatureCollection`, an object with `features` (a FeatureSet), or a
    ///   feature (`geometry`/`attributes`: feature lines); when the first line
    ///   is not a whole JSON value (pretty-printed JSON), the whole text's top
    ///   members decide (`type` FeatureCollection/Feature → GeoJSON,
    ///   `features` → FeatureSet);
    /// - anything else → CSV.
    /// Returns nil when the text starts like JSON but is none of these.
    public static func sniff(_ bytes: [UInt8], fileName: String = "") -> FeatureFileFormat? {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else {
            return fileName.lowercased().hasSuffix(".csv") ? .csv : nil
        }
        switch bytes[start] {
        case 0x1E: return .geoJSONSeq
        case UInt8(ascii: "["): return .esriFeatureArray
        case UInt8(ascii: "{"): break
        default: return .csv
        }
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        if let first = try? JSONParser.parse(Array(bytes[start..<end])), let object = first.objectValue {
            if object["recording"]?.stringValue == RecordingHeader.formatName { return .recording }
            switch object["type"]?.stringValue {
            case "Feature": return .geoJSONSeq
            case "FeatureCollection": return .geoJSON
            default: break
            }
            if object["features"] != nil { return .esriFeatureSet }
            if object["geometry"] != nil || object["attributes"] != nil { return .esriFeatureLines }
            return nil
        }
        guard let members = try? JSONParser.memberRanges(ofObject: bytes) else { return nil }
        for member in members where member.key == "type" {
            let type = bytes.withUnsafeBytes { all in try? JSONParser.parse(UnsafeRawBufferPointer(rebasing: all[member.value])) }
            if type?.stringValue == "FeatureCollection" || type?.stringValue == "Feature" { return .geoJSON }
        }
        if members.contains(where: { $0.key == "features" }) { return .esriFeatureSet }
        return nil
    }
}
