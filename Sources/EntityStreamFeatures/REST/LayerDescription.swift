import EntityStreamProjection
import EntityStreamModel
import EntityStreamCore

/// A feature layer's or table's description, `…/MapServer/0?f=json` or
/// `…/FeatureServer/0?f=json`: what a query client needs to know and what
/// the simulator's layers answer.
///
/// ``init(table:id:maxRecordCount:supportsPagination:supportsStatistics:)``
/// builds the server's description of a ``FeatureTable``; ``json()`` writes
/// it (`id, name, type, geometryType, objectIdField, fields, extent,
/// timeInfo, maxRecordCount, standardMaxRecordCount, capabilities,
/// supportsStatistics, advancedQueryCapabilities, …`). ``init(json:)``
/// reads any server's answer: an ArcGIS error object throws
/// ``LayerDescriptionError/arcGIS(_:)``, non-JSON throws
/// ``LayerDescriptionError/notJSON(_:)``, a service root or anything without
/// `fields` throws ``LayerDescriptionError/notALayer(_:)``. Members a server
/// omits take ArcGIS's defaults (no `advancedQueryCapabilities`: no
/// pagination; no `maxRecordCount`: 1000). A plain value.
public struct LayerDescription: Sendable, Hashable {
    /// `advancedQueryCapabilities`.
    public struct AdvancedQueryCapabilities: Sendable, Hashable {
        public var supportsPagination: Bool
        public var supportsOrderBy: Bool
        public var supportsStatistics: Bool
        public var supportsHavingClause: Bool
        public var supportsCountDistinct: Bool
        public var supportsDistinct: Bool

        public init(supportsPagination: Bool, supportsOrderBy: Bool, supportsStatistics: Bool, supportsHavingClause: Bool,
                    supportsCountDistinct: Bool, supportsDistinct: Bool) {
            self.supportsPagination = supportsPagination
            self.supportsOrderBy = supportsOrderBy
            self.supportsStatistics = supportsStatistics
            self.supportsHavingClause = supportsHavingClause
            self.supportsCountDistinct = supportsCountDistinct
            self.supportsDistinct = supportsDistinct
        }
    }

    /// ArcGIS's `maxRecordCount` when a layer does not say.
    public static let defaultMaxRecordCount = 1000

    public var currentVersion: Double?
    public var id: Int
    public var name: String
    /// "Feature Layer" or "Table" (other types are kept as given).
    public var type: String
    /// `esriGeometryPoint`, …; nil for a table.
    public var geometryType: String?
    public var objectIDField: String?
    public var displayField: String?
    public var fields: [Field]
    public var extent: Envelope?
    /// The layer's spatial reference: `sourceSpatialReference`, else the extent's.
    public var spatialReference: Int?
    public var timeInfo: LayerTimeInfo?
    public var maxRecordCount: Int?
    /// The page size of `resultType=standard` queries.
    public var standardMaxRecordCount: Int?
    /// The page size of `resultType=tile` queries.
    public var tileMaxRecordCount: Int?
    public var capabilities: String?
    public var supportsStatistics: Bool
    public var advancedQueryCapabilities: AdvancedQueryCapabilities?
    public var supportedQueryFormats: String?

    /// True for a table (no geometry).
    public var isTable: Bool { type == "Table" || geometryType == nil }
    /// `advancedQueryCapabilities.supportsPagination` (false when absent).
    public var supportsPagination: Bool { advancedQueryCapabilities?.supportsPagination ?? false }
    /// `maxRecordCount`, or ArcGIS's default 1000; at least 1.
    public var effectiveMaxRecordCount: Int { max(1, maxRecordCount ?? Self.defaultMaxRecordCount) }

    public init(id: Int, name: String, type: String, geometryType: String?, objectIDField: String?, fields: [Field],
                extent: Envelope? = nil, spatialReference: Int? = nil, timeInfo: LayerTimeInfo? = nil, maxRecordCount: Int? = nil,
                capabilities: String? = "Query", supportsStatistics: Bool = false,
                advancedQueryCapabilities: AdvancedQueryCapabilities? = nil) {
        self.currentVersion = 11.1
        self.id = id
        self.name = name
        self.type = type
        self.geometryType = geometryType
        self.objectIDField = objectIDField
        self.displayField = nil
        self.fields = fields
        self.extent = extent
        self.spatialReference = spatialReference
        self.timeInfo = timeInfo
        self.maxRecordCount = maxRecordCount
        self.standardMaxRecordCount = maxRecordCount
        self.capabilities = capabilities
        self.supportsStatistics = supportsStatistics
        self.advancedQueryCapabilities = advancedQueryCapabilities
        self.supportedQueryFormats = "JSON, geoJSON"
    }

    /// The description a server gives of `table` as layer `id`, answering
    /// with `engine` (its record counts and pagination).
    public init(table: FeatureTable, id: Int = 0, engine: FeatureQueryEngine) {
        self.init(table: table, id: id, maxRecordCount: engine.maxRecordCount, supportsPagination: engine.supportsPagination,
                  supportsStatistics: engine.statistics != nil)
        standardMaxRecordCount = engine.standardMaxRecordCount
        tileMaxRecordCount = engine.tileMaxRecordCount
    }

    /// The description a server gives of `table` as layer `id`.
    public init(table: FeatureTable, id: Int = 0, maxRecordCount: Int, supportsPagination: Bool = true, supportsStatistics: Bool = false) {
        let schema = table.schema
        var timeInfo: LayerTimeInfo?
        if let start = table.startTimeFieldIndex {
            timeInfo = LayerTimeInfo(startTimeField: schema.fields[start].name,
                                     endTimeField: table.endTimeFieldIndex.map { schema.fields[$0].name },
                                     trackIDField: schema.trackIDField?.name, timeExtent: table.dataTimeExtent)
        }
        self.init(id: id, name: table.name, type: table.geometryType.layerType, geometryType: table.geometryType.esriName,
                  objectIDField: table.objectIDField.name, fields: schema.fields, extent: table.extent,
                  spatialReference: table.spatialReference, timeInfo: timeInfo, maxRecordCount: maxRecordCount,
                  capabilities: "Query", supportsStatistics: supportsStatistics,
                  advancedQueryCapabilities: AdvancedQueryCapabilities(
                    supportsPagination: supportsPagination, supportsOrderBy: true, supportsStatistics: supportsStatistics,
                    supportsHavingClause: supportsStatistics, supportsCountDistinct: supportsStatistics, supportsDistinct: supportsStatistics))
        displayField = Self.displayField(of: schema)
    }

    /// The display field a server names for `schema`: the track id field,
    /// else the first string field (what the `text` query parameter searches).
    public static func displayField(of schema: Schema) -> String? {
        schema.trackIDField?.name ?? schema.fields.first { $0.type == .string }?.name
    }

    /// Reads a layer description (see the type's contract).
    public init(json bytes: [UInt8]) throws(LayerDescriptionError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw .notJSON(error.description) }
        try self.init(value: value)
    }

    /// Reads a layer description already parsed.
    public init(value: JSONValue) throws(LayerDescriptionError) {
        if let error = ArcGISError(json: value) { throw .arcGIS(error) }
        guard let object = value.objectValue else { throw .notALayer("the answer is JSON but not an object") }
        if object["fields"] == nil {
            if let layers = object["layers"]?.arrayValue {
                let ids = (layers + (object["tables"]?.arrayValue ?? [])).compactMap { entry -> String? in
                    guard let id = entry["id"]?.intValue else { return nil }
                    return "\(id) (\(entry["name"]?.stringValue ?? "unnamed"))"
                }
                throw .notALayer("this is a service, not a layer: add /<id> to the URL (its layers and tables: \(ids.isEmpty ? "none" : ids.joined(separator: ", ")))")
            }
            throw .notALayer("the description has no 'fields' (is this a feature layer or table URL?)")
        }
        let fields: [Field]
        do throws(FeatureFormatError) { fields = try Field.esriFields(object["fields"]) } catch { throw .fields(error) }
        let extent: Envelope? = object["extent"].flatMap { try? StreamFilter.parseEnvelope(json: $0) }
        let reference = object["sourceSpatialReference"] ?? object["extent"]?["spatialReference"] ?? object["spatialReference"]
        let wkid = SpatialReference.code(ofJSON: reference)
        func integer(_ key: String) -> Int? { object[key]?.intValue.flatMap { Int(exactly: $0) } }
        let geometryType = object["geometryType"]?.stringValue
        self.init(id: integer("id") ?? 0, name: object["name"]?.stringValue ?? "", type: object["type"]?.stringValue ?? (geometryType == nil ? "Table" : "Feature Layer"),
                  geometryType: geometryType, objectIDField: object["objectIdField"]?.stringValue ?? fields.first { $0.type == .objectID }?.name,
                  fields: fields, extent: extent, spatialReference: wkid, timeInfo: LayerTimeInfo(json: object["timeInfo"]),
                  maxRecordCount: integer("maxRecordCount"), capabilities: object["capabilities"]?.stringValue,
                  supportsStatistics: object["supportsStatistics"]?.boolValue ?? false)
        currentVersion = object["currentVersion"]?.doubleValue
        displayField = object["displayField"]?.stringValue
        standardMaxRecordCount = integer("standardMaxRecordCount")
        tileMaxRecordCount = integer("tileMaxRecordCount")
        supportedQueryFormats = object["supportedQueryFormats"]?.stringValue
        if let advanced = object["advancedQueryCapabilities"], advanced.objectValue != nil {
            func flag(_ key: String) -> Bool { advanced[key]?.boolValue ?? false }
            advancedQueryCapabilities = AdvancedQueryCapabilities(
                supportsPagination: flag("supportsPagination"), supportsOrderBy: flag("supportsOrderBy"),
                supportsStatistics: flag("supportsStatistics"), supportsHavingClause: flag("supportsHavingClause"),
                supportsCountDistinct: flag("supportsCountDistinct"), supportsDistinct: flag("supportsDistinct"))
        } else {
            advancedQueryCapabilities = nil
        }
    }

    /// The description as ArcGIS writes it. Members that do not apply are
    /// omitted, never `null` (as ArcGIS Server does: a table has no
    /// `geometryType`, `extent` or `sourceSpatialReference`, a layer without
    /// time no `timeInfo`; Esri's Python client fails on explicit nulls).
    /// The query capabilities say what the simulator's query engine does:
    /// pagination (unless turned off), order by, statistics and `having`
    /// (when it has a statistics engine), `returnExtentOnly` and
    /// `returnQueryExtent`, `distance`, `resultType`, `geometryPrecision`
    /// and `quantizationParameters`.
    public func json() -> [UInt8] {
        var object = JSONObject()
        func optional(_ key: String, _ value: String?) { if let value { object.append(key: key, value: .string(value)) } }
        func optional(_ key: String, _ value: Int?) { if let value { object.append(key: key, value: .int(Int64(value))) } }
        if let currentVersion { object.append(key: "currentVersion", value: .double(currentVersion)) }
        object.append(key: "id", value: .int(Int64(id)))
        object.append(key: "name", value: .string(name))
        object.append(key: "type", value: .string(type))
        object.append(key: "description", value: .string(""))
        optional("geometryType", geometryType)
        if let spatialReference, !isTable {
            object.append(key: "sourceSpatialReference", value: Self.spatialReferenceJSON(spatialReference))
        }
        optional("objectIdField", objectIDField)
        optional("displayField", displayField)
        object.append(key: "globalIdField", value: .string(""))
        if !isTable, let extent {
            var box = JSONObject([("xmin", .double(extent.xmin)), ("ymin", .double(extent.ymin)),
                                  ("xmax", .double(extent.xmax)), ("ymax", .double(extent.ymax))])
            if let wkid = extent.wkid ?? spatialReference { box.append(key: "spatialReference", value: Self.spatialReferenceJSON(wkid)) }
            object.append(key: "extent", value: .object(box))
        }
        if let timeInfo { object.append(key: "timeInfo", value: timeInfo.json) }
        object.append(key: "hasAttachments", value: .bool(false))
        if !isTable {
            object.append(key: "hasZ", value: .bool(false))
            object.append(key: "hasM", value: .bool(false))
        }
        optional("maxRecordCount", maxRecordCount)
        optional("standardMaxRecordCount", standardMaxRecordCount)
        optional("tileMaxRecordCount", tileMaxRecordCount)
        if maxRecordCount != nil { object.append(key: "maxRecordCountFactor", value: .int(5)) }
        optional("supportedQueryFormats", supportedQueryFormats)
        optional("capabilities", capabilities)
        object.append(key: "supportsStatistics", value: .bool(supportsStatistics))
        object.append(key: "supportsAdvancedQueries", value: .bool(advancedQueryCapabilities != nil))
        object.append(key: "supportsCoordinatesQuantization", value: .bool(!isTable))
        object.append(key: "useStandardizedQueries", value: .bool(true))
        if let advanced = advancedQueryCapabilities {
            object.append(key: "advancedQueryCapabilities", value: .object(JSONObject([
                ("supportsPagination", .bool(advanced.supportsPagination)),
                ("supportsPaginationOnAggregatedQueries", .bool(advanced.supportsPagination && advanced.supportsStatistics)),
                ("supportsQueryWithResultType", .bool(true)),
                ("supportsOrderBy", .bool(advanced.supportsOrderBy)),
                ("supportsStatistics", .bool(advanced.supportsStatistics)),
                ("supportsHavingClause", .bool(advanced.supportsHavingClause)),
                ("supportsCountDistinct", .bool(advanced.supportsCountDistinct)),
                ("supportsDistinct", .bool(advanced.supportsDistinct)),
                ("supportsReturningQueryExtent", .bool(!isTable)),
                ("supportsQueryWithDistance", .bool(!isTable)),
                ("supportsTrueCurve", .bool(false)),
                ("supportsSqlExpression", .bool(false)),
                ("supportsOutFieldSQLExpression", .bool(false)),
                ("supportsQueryWithDatumTransformation", .bool(false)),
                ("supportsReturningGeometryCentroid", .bool(false)),
            ])))
        }
        object.append(key: "fields", value: .array(fields.map(\.esriJSON)))
        var writer = JSONWriter(capacity: 2048)
        writer.append(.object(object))
        return writer.bytes
    }

    /// The spatial reference with code `code` as ArcGIS writes it
    /// (``SpatialReference/json``: `{"wkid":…,"latestWkid":…}` or `{"wkt":…}`).
    public static func spatialReferenceJSON(_ code: Int) -> JSONValue {
        SpatialReference(code: code)?.json ?? .object(JSONObject([("wkid", .int(Int64(code)))]))
    }
}

/// Why a layer description could not be used.
public enum LayerDescriptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with its error object.
    case arcGIS(ArcGISError)
    /// The answer is not JSON (an HTML page, a proxy error, …).
    case notJSON(String)
    /// JSON, but not a layer or table (a service root, a stream service, …).
    case notALayer(String)
    /// A layer description whose `fields` are malformed.
    case fields(FeatureFormatError)

    public var description: String {
        switch self {
        case .arcGIS(let error): return error.description
        case .notJSON(let detail): return "the layer description is not JSON (\(detail))"
        case .notALayer(let detail): return "not a feature layer: \(detail)"
        case .fields(let error): return "the layer description is malformed: \(error.description)"
        }
    }
}
