import EntityStreamProjection
import EntityStreamModel

/// One page of a query's answer as a client reads it: the FeatureSet's
/// fields and spatial reference, its features as ``Observation``s (geometry
/// and attributes aligned to ``schema``), and whether the server holds more.
public struct FeatureSetPage: Sendable {
    /// 0 for the first page of a query, then 1, 2, …
    public var index: Int
    public var objectIDFieldName: String?
    public var geometryType: String?
    /// `spatialReference.latestWkid` or `wkid` (points without their own take it).
    public var spatialReference: Int?
    /// The `fields` the page declared, then any attribute it used without declaring.
    public var schema: Schema
    public var features: [Observation]
    public var exceededTransferLimit: Bool
    /// Features whose geometry is not a point: kept with a nil geometry, counted here.
    public var nonPointGeometryCount: Int

    public init(index: Int = 0, objectIDFieldName: String?, geometryType: String?, spatialReference: Int?, schema: Schema,
                features: [Observation], exceededTransferLimit: Bool, nonPointGeometryCount: Int = 0) {
        self.index = index
        self.objectIDFieldName = objectIDFieldName
        self.geometryType = geometryType
        self.spatialReference = spatialReference
        self.schema = schema
        self.features = features
        self.exceededTransferLimit = exceededTransferLimit
        self.nonPointGeometryCount = nonPointGeometryCount
    }

    /// The object id of feature `index` (its object-id attribute), when the page has one.
    public func objectID(of feature: Observation) -> Int64? {
        guard let name = objectIDFieldName, let field = schema.index(ofField: name) else { return nil }
        switch feature.attribute(field) {
        case .int(let id): return id
        case .double(let d): return Int64(exactly: d)
        default: return nil
        }
    }
}

/// Reads query responses on the client: a FeatureSet page, a count, or
/// object ids — each from a whole response body (bounded by the HTTP
/// client's body limit), each validated in one linear pass.
///
/// Every reader throws ``FeatureSetReadError``: the server's ArcGIS error
/// object (``FeatureSetReadError/arcGIS(_:)``); a body that is not JSON
/// (``FeatureSetReadError/notJSON(detail:excerpt:)``, e.g. an HTML page); a
/// body that stops in the middle (``FeatureSetReadError/truncated(bytes:)``);
/// JSON of the wrong shape (``FeatureSetReadError/invalid(_:)``). Stateless.
public enum FeatureSetReader {
    /// A FeatureSet (`f=json` answer). Dates in date fields become `.date`;
    /// `receivedAt` stamps the observations.
    public static func page(_ bytes: [UInt8], index: Int = 0, receivedAt: Int64 = 0) throws(FeatureSetReadError) -> FeatureSetPage {
        let members = try topMembers(bytes)
        func value(_ key: String) throws(FeatureSetReadError) -> JSONValue? {
            guard let range = members.last(where: { $0.key == key })?.value else { return nil }
            do { return try JSONParser.parse(Array(bytes[range])) } catch { throw .invalid("'\(key)': \(error)") }
        }
        guard let featuresRange = members.last(where: { $0.key == "features" })?.value else {
            throw .invalid("the answer has no 'features' (expected a FeatureSet)")
        }
        let fields: [Field]
        let fieldsValue = try value("fields")
        do throws(FeatureFormatError) { fields = try Field.esriFields(fieldsValue) } catch { throw .fields(error) }
        let reference = try value("spatialReference")
        let wkid = SpatialReference.code(ofJSON: reference)
        let ranges: [Range<Int>]
        do throws(JSONError) { ranges = try EsriFeatureLoader.elementRanges(bytes, in: featuresRange) } catch {
            throw .invalid("'features' must be an array: \(error.message)")
        }
        var decoder = EsriFeatureDecoder(schema: Schema(fields: fields))
        var decoded: [StreamMessage] = []
        var features: [Observation] = []
        features.reserveCapacity(ranges.count)
        var nonPoint = 0
        for (number, range) in ranges.enumerated() {
            decoded.removeAll(keepingCapacity: true)
            do throws(JSONError) { try decoder.decode(bytes, range: range, receivedAt: receivedAt, into: &decoded) } catch {
                throw .invalid("features[\(number)] is not an Esri feature: \(error.message)")
            }
            for message in decoded {
                switch message {
                case .observation(var observation):
                    if observation.geometry != nil, observation.geometry?.wkid == nil { observation.geometry?.wkid = wkid }
                    observation.source = nil
                    features.append(observation)
                case .nonPointGeometry(_, var observation):
                    nonPoint += 1
                    observation.source = nil
                    features.append(observation)
                case .delete, .filterReply:
                    throw .invalid("features[\(number)] is not a feature")
                }
            }
        }
        var exceeded = try value("exceededTransferLimit")?.boolValue
        if exceeded == nil { exceeded = try value("properties")?["exceededTransferLimit"]?.boolValue }
        return FeatureSetPage(index: index, objectIDFieldName: try value("objectIdFieldName")?.stringValue,
                              geometryType: try value("geometryType")?.stringValue, spatialReference: wkid, schema: decoder.schema,
                              features: features, exceededTransferLimit: exceeded ?? false, nonPointGeometryCount: nonPoint)
    }

    /// `{"count":N}`.
    public static func count(_ bytes: [UInt8]) throws(FeatureSetReadError) -> Int {
        let value = try document(bytes)
        guard let count = value["count"]?.intValue.flatMap({ Int(exactly: $0) }), count >= 0 else {
            throw .invalid("the answer has no 'count' (expected {\"count\":N})")
        }
        return count
    }

    /// `{"objectIdFieldName":…,"objectIds":[…]}` (`objectIds` null means none).
    public static func objectIDs(_ bytes: [UInt8]) throws(FeatureSetReadError) -> (fieldName: String?, ids: [Int64]) {
        let value = try document(bytes)
        guard let list = value["objectIds"] else { throw .invalid("the answer has no 'objectIds' (expected {\"objectIds\":[…]})") }
        if list.isNull { return (value["objectIdFieldName"]?.stringValue, []) }
        guard let elements = list.arrayValue else { throw .invalid("'objectIds' must be an array") }
        var ids: [Int64] = []
        ids.reserveCapacity(elements.count)
        for element in elements {
            guard let id = element.intValue else { throw .invalid("'objectIds' holds \(element), not an object id") }
            ids.append(id)
        }
        return (value["objectIdFieldName"]?.stringValue, ids)
    }

    /// The whole body as JSON, after the checks every reader shares.
    static func document(_ bytes: [UInt8]) throws(FeatureSetReadError) -> JSONValue {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw classify(error, bytes) }
        if let error = ArcGISError(json: value) { throw .arcGIS(error) }
        guard value.objectValue != nil else { throw .invalid("the answer is JSON but not an object") }
        return value
    }

    /// The top-level members (validating the whole body), after the shared checks.
    static func topMembers(_ bytes: [UInt8]) throws(FeatureSetReadError) -> [(key: String, value: Range<Int>)] {
        let members: [(key: String, value: Range<Int>)]
        do { members = try JSONParser.memberRanges(ofObject: bytes) } catch {
            if let value = try? JSONParser.parse(bytes), value.objectValue == nil { throw .invalid("the answer is JSON but not an object") }
            throw classify(error, bytes)
        }
        if let range = members.last(where: { $0.key == "error" })?.value,
           let value = try? JSONParser.parse(Array(bytes[range])), !value.isNull {
            throw .arcGIS(ArcGISError(json: .object(JSONObject([("error", value)]))) ?? ArcGISError(code: nil, message: "\(value)"))
        }
        return members
    }

    /// A parse failure: the body ended early (truncated) or is not JSON at all.
    public static func classify(_ error: JSONError, _ bytes: [UInt8]) -> FeatureSetReadError {
        var first = 0
        while first < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[first]) { first += 1 }
        let looksLikeJSON = first < bytes.count && (bytes[first] == UInt8(ascii: "{") || bytes[first] == UInt8(ascii: "["))
        // Only the end of the text can leave a value unfinished or a string unterminated.
        if looksLikeJSON && (error.offset >= bytes.count || error.kind == .endedEarly) { return .truncated(bytes: bytes.count) }
        return .notJSON(detail: error.description, excerpt: excerpt(bytes))
    }

    /// The first 120 characters of a body, on one line.
    public static func excerpt(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(120), as: UTF8.self)
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\t" ? " " : $0 }) + (bytes.count > 120 ? "…" : "")
    }
}

/// Why a query response could not be read (see ``FeatureSetReader``).
public enum FeatureSetReadError: Error, Sendable, Hashable, CustomStringConvertible {
    case arcGIS(ArcGISError)
    case notJSON(detail: String, excerpt: String)
    /// The body ends in the middle of its JSON, after this many bytes.
    case truncated(bytes: Int)
    case invalid(String)
    /// A FeatureSet whose `fields` are malformed.
    case fields(FeatureFormatError)

    public var description: String {
        switch self {
        case .arcGIS(let error): return error.description
        case .fields(let error): return "unexpected response: \(error.description)"
        case .notJSON(let detail, let excerpt): return "not JSON (\(detail)): \(excerpt)"
        case .truncated(let bytes): return "the response was truncated: its JSON stops after \(bytes) bytes"
        case .invalid(let detail): return "unexpected response: \(detail)"
        }
    }
}
