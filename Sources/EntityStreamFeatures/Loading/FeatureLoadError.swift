import EntityStreamCore
import EntityStreamModel
import EntityStreamProjection

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a feature file could not be loaded: the file, the 1-based line when
/// the problem is about one record, and what is wrong (``reason``, by case).
///
/// ``description`` reads `hurdat.csv:12: lat column 'lat': 'north' is not a number`,
/// or `hurdat.csv: …` without a line. The file and line are kept beside the
/// reason, not in each case, because every reason has a file, most can be
/// met at any line, and a chunked scan re-bases the line to the file's
/// without looking at the reason. ``isCancellation`` marks a load that
/// stopped because its task was cancelled (``cancelled(file:)``). A plain value.
public struct FeatureLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// What is wrong.
    public var reason: Reason

    public init(file: String, line: Int? = nil, _ reason: Reason) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// The load of `file` stopped because its task was cancelled.
    public static func cancelled(file: String) -> FeatureLoadError { FeatureLoadError(file: file, .cancelled) }

    /// The load stopped because its task was cancelled, not because of the file.
    public var isCancellation: Bool { reason == .cancelled }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(reason)"
    }

    /// A system call on the file that failed.
    public enum FileOperation: Sendable, Hashable {
        case open, readSize, read

        var words: String {
            switch self {
            case .open: return "open the file"
            case .readSize: return "read the file's size"
            case .read: return "read the file"
            }
        }
    }

    /// What is wrong with a feature file, by case.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        // MARK: The file

        /// The loading task was cancelled.
        case cancelled
        /// A system call failed, with its `errno`.
        case system(FileOperation, errno: Int32)
        /// The path is not a regular file.
        case notRegularFile
        /// The file ended at `size` bytes while it was read, where the read was planned to `expected`
        /// (it was cut or replaced): the rows after it were not read.
        case shrank(size: Int, expected: Int)
        /// The file is larger than `limit` bytes.
        case fileTooLarge(size: Int, limit: Int)
        /// A one-document file (array, FeatureSet, GeoJSON) larger than `limit`, which only a line format can stream.
        case documentTooLarge(size: Int, format: FeatureFileFormat, limit: Int)
        /// The file is binary; what it looks like (from its signature).
        case binary(kind: String)
        /// JSON that is none of the formats.
        case unknownFormat
        /// x and y columns given for a format that is not CSV.
        case coordinatesForNonCSV(FeatureFileFormat)
        /// A record at byte `offset` does not end within the record limit (the splitter's words on it).
        case unfinishedRecord(offset: Int, String)
        /// A table builder refused the layout or a row (its own error).
        case table(FeatureTableError)

        // MARK: CSV and the column mapping

        /// The CSV text is wrong (its own reason; the line is the error's).
        case csv(CSVError.Reason)
        /// x and y name the same column.
        case sameCoordinateColumn(String)
        /// The mapping names a field (its role and name) the file does not have, with the file's fields.
        case mappedFieldMissing(role: String, name: String, fields: [String])
        /// An end time field without a start time field.
        case endWithoutStart
        /// The start and end time fields are the same field.
        case sameStartAndEnd(String)
        /// The object-id field is also a time field.
        case objectIDIsTime(String)
        /// The mapped `oid` field holds values of another type than integers.
        case oidNotInteger(field: String, FieldType)
        /// The mapped `oid` field is also a time field.
        case oidIsTime(String)

        // MARK: Esri JSON and recordings

        /// The JSON array of features does not parse.
        case invalidArray(JSONError)
        /// The FeatureSet document does not parse.
        case invalidFeatureSet(JSONError)
        /// A FeatureSet member (its key) does not parse.
        case invalidMember(key: String, JSONError)
        /// The file is an ArcGIS error answer (its `error` member).
        case arcGISError(ArcGISError)
        /// The FeatureSet's `fields` are malformed.
        case fields(FeatureFormatError)
        /// The FeatureSet's geometryType is not esriGeometryPoint.
        case notPointLayer(geometryType: JSONValue)
        /// The FeatureSet has no `features`.
        case featureSetWithoutFeatures
        /// The FeatureSet's `features` is not an array.
        case featuresNotArray(JSONError)
        /// The recording is malformed (its own error; the line is the error's).
        case recording(RecordingError)
        /// The recording's service description has malformed `fields`.
        case recordedFields(FeatureFormatError)
        /// A line or element is not an Esri JSON feature.
        case notEsriFeature(JSONError)
        /// A feature with a geometry other than a point (its kind).
        case nonPointFeature(kind: String)
        /// A delete message where a feature was expected.
        case deleteMessage
        /// A filter reply where a feature was expected.
        case filterReply
        /// A value the field's inferred type cannot hold.
        case cannotHold(field: String, FieldType, AttributeValue)
        /// A point PROJ cannot bring into the layer's spatial reference.
        case pointNotConvertible(ProjectionError)

        // MARK: GeoJSON

        /// The GeoJSON document does not parse.
        case invalidGeoJSON(JSONError)
        /// The document's `type` (nil when missing) is neither FeatureCollection nor Feature.
        case notFeatureCollection(type: String?)
        /// The FeatureCollection has no `features`.
        case collectionWithoutFeatures
        /// The FeatureCollection's `features` is not an array.
        case collectionFeaturesNotArray(JSONError)
        /// Two properties whose names differ only in case.
        case propertiesDifferInCase(String, String)
        /// A GeoJSON feature that does not parse.
        case featureNotJSON(JSONError)
        /// A GeoJSON feature that is not an object.
        case featureNotObject
        /// A GeoJSON object whose `type` (nil when missing) is not Feature.
        case notFeature(type: JSONValue?)
        /// A geometry without `type`.
        case geometryWithoutType
        /// A geometry other than Point (its type).
        case notPointGeometry(String)
        /// A Point without `coordinates`.
        case pointWithoutCoordinates
        /// Point coordinates that are not 2 or 3 finite numbers.
        case badCoordinates([JSONValue])
        /// `properties` that is neither an object nor null.
        case propertiesNotObject
        /// A property given twice.
        case propertyTwice(String)

        public var description: String {
            switch self {
            case .cancelled: return "loading was cancelled"
            case .system(let operation, let code): return "cannot \(operation.words): \(String(cString: strerror(code)))"
            case .notRegularFile: return "not a regular file"
            case .shrank(let size, let expected):
                return "the file shrank to \(size) bytes after its read was planned to \(expected) bytes (it was cut or replaced); its rows after that were not read"
            case .fileTooLarge(let size, let limit): return "the file has \(size) bytes, more than the limit of \(limit)"
            case .documentTooLarge(let size, let format, let limit): return Self.tooLarge(size: size, format: format, limit: limit)
            case .binary(let kind): return "not a CSV or JSON file: \(kind) (feature files are text: CSV, Esri JSON, GeoJSON or a recording)"
            case .unknownFormat:
                return "cannot tell the format: the text starts like JSON but is not Esri features, a FeatureSet, GeoJSON or a recording "
                    + "(force one of \(FeatureFileFormat.names))"
            case .coordinatesForNonCSV(let format):
                return "x and y columns apply to CSV files only; this file is \(format.name), whose features carry their geometry"
            case .unfinishedRecord(let offset, let words): return "at byte \(offset): \(words)"
            case .table(let error): return error.description
            case .csv(let reason): return reason.description
            case .sameCoordinateColumn(let column): return "x and y both name column '\(column)'"
            case .mappedFieldMissing(let role, let name, let fields):
                return "the column mapping names \(role) field '\(name)', which the file does not have (fields: \(fields.joined(separator: ", ")))"
            case .endWithoutStart: return "an end time field needs a start time field (time=FIELD)"
            case .sameStartAndEnd(let field): return "the start and end time fields are the same field '\(field)'"
            case .objectIDIsTime(let field): return "the object-id field '\(field)' cannot be a time field"
            case .oidNotInteger(let field, let type): return "the oid field '\(field)' holds \(type.esriName) values, not integers"
            case .oidIsTime(let field): return "the oid field '\(field)' cannot also be a time field"
            case .invalidArray(let error): return "the JSON array is invalid: \(error.message)"
            case .invalidFeatureSet(let error): return "the FeatureSet is not valid JSON: \(error.message)"
            case .invalidMember(let key, let error): return "'\(key)': \(error)"
            case .arcGISError(let error): return "the file holds an ArcGIS error, not features: \(error.description)"
            case .fields(let error): return error.description
            case .notPointLayer(let type): return "only point layers can be loaded; the FeatureSet's geometryType is \(type)"
            case .featureSetWithoutFeatures: return "the FeatureSet has no 'features' array"
            case .featuresNotArray(let error): return "'features' must be an array of features: \(error.message)"
            case .recording(let error): return error.message
            case .recordedFields(let error): return "the recorded service description: \(error.description)"
            case .notEsriFeature(let error): return "not an Esri JSON feature: \(error)"
            case .nonPointFeature(let kind): return "only point features can be loaded; this feature has a \(kind) geometry"
            case .deleteMessage: return "a delete message is not a feature"
            case .filterReply: return "a filter reply is not a feature"
            case .cannotHold(let field, let type, let value): return "field '\(field)' (\(type.esriName)) cannot hold \(value.displayText)"
            case .pointNotConvertible(let error): return "the point cannot be brought into the layer's spatial reference: \(error)"
            case .invalidGeoJSON(let error): return "not valid GeoJSON: \(error.message)"
            case .notFeatureCollection(let type): return "not a GeoJSON FeatureCollection or Feature (\"type\" is \(type.map { "'\($0)'" } ?? "missing"))"
            case .collectionWithoutFeatures: return "the FeatureCollection has no 'features' array"
            case .collectionFeaturesNotArray(let error): return "'features' must be an array: \(error.message)"
            case .propertiesDifferInCase(let first, let second):
                return "properties '\(first)' and '\(second)' differ only in case; field names must differ in more"
            case .featureNotJSON(let error): return "not valid JSON: \(error)"
            case .featureNotObject: return "expected a GeoJSON Feature object"
            case .notFeature(let type): return "expected a GeoJSON Feature, found \"type\" \(type.map { $0.description } ?? "missing")"
            case .geometryWithoutType: return "the geometry has no \"type\""
            case .notPointGeometry(let type): return "only Point geometries can be loaded; this feature is a \(type)"
            case .pointWithoutCoordinates: return "the Point has no \"coordinates\" array"
            case .badCoordinates(let coordinates): return "Point coordinates must be 2 or 3 finite numbers, not \(JSONValue.array(coordinates))"
            case .propertiesNotObject: return "\"properties\" must be an object or null"
            case .propertyTwice(let name): return "property '\(name)' is given twice"
            }
        }

        /// A one-document file over the limit: what it is, its size, the
        /// limit, and the format that streams instead.
        private static func tooLarge(size: Int, format: FeatureFileFormat, limit: Int) -> String {
            let what: String, instead: String
            switch format {
            case .esriFeatureArray:
                what = "one JSON array of Esri features"
                instead = "Esri JSON lines, one feature per line (e.g. jq -c '.[]' FILE > FILE.jsonl)"
            case .esriFeatureSet:
                what = "one Esri FeatureSet"
                instead = "Esri JSON lines, one feature per line (e.g. jq -c '.features[]' FILE > FILE.jsonl)"
            default:
                what = "one GeoJSON document"
                instead = "a GeoJSON sequence, one Feature per line (e.g. ogr2ogr -f GeoJSONSeq FILE.geojsonl FILE, or jq -c '.features[]' FILE)"
            }
            return "the file has \(size) bytes (\(mebibytes(size))), more than the \(mebibytes(limit)) a file that is \(what) may have: "
                + "such a file is parsed whole, in memory; write it as \(instead), which is read in bounded memory"
        }

        private static func mebibytes(_ bytes: Int) -> String {
            bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\((Double(bytes) / Double(1 << 20) * 10).rounded() / 10) MiB"
        }
    }
}
