import EntityStreamProjection
import EntityStreamModel

/// A MapServer or FeatureServer root (`…/NAME/MapServer?f=json`): the
/// service's layers and tables, as ArcGIS lists them.
///
/// ``init(kind:name:layers:)`` builds the root of the given layer
/// descriptions (tables go in `tables`, the others in `layers`); ``json()``
/// writes it; ``init(json:)`` reads any server's root (throwing
/// ``LayerDescriptionError`` for an error object or non-JSON). A plain value.
public struct FeatureServiceRoot: Sendable, Hashable {
    /// The two service types that hold feature layers.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case mapServer = "MapServer"
        case featureServer = "FeatureServer"
    }

    /// One entry of `layers` or `tables`.
    public struct Entry: Sendable, Hashable {
        public var id: Int
        public var name: String
        public var type: String
        public var geometryType: String?

        public init(id: Int, name: String, type: String, geometryType: String?) {
            self.id = id
            self.name = name
            self.type = type
            self.geometryType = geometryType
        }
    }

    public var kind: Kind
    public var name: String
    public var layers: [Entry]
    public var tables: [Entry]
    public var spatialReference: Int?
    public var maxRecordCount: Int?

    public init(kind: Kind, name: String, layers descriptions: [LayerDescription]) {
        self.kind = kind
        self.name = name
        let entries = descriptions.map { Entry(id: $0.id, name: $0.name, type: $0.type, geometryType: $0.geometryType) }
        layers = entries.filter { $0.type != "Table" }
        tables = entries.filter { $0.type == "Table" }
        spatialReference = descriptions.lazy.compactMap(\.spatialReference).first
        maxRecordCount = descriptions.lazy.compactMap(\.maxRecordCount).first
    }

    /// Reads a service root; `kind` says which service type was asked for.
    public init(json bytes: [UInt8], kind: Kind) throws(LayerDescriptionError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw .notJSON(error) }
        if let error = ArcGISError(json: value) { throw .arcGIS(error) }
        guard value.objectValue != nil, value["layers"] != nil || value["tables"] != nil else {
            throw .notALayer(.noLayersOrTables(kind))
        }
        func entries(_ key: String) -> [Entry] {
            (value[key]?.arrayValue ?? []).compactMap { entry in
                guard let id = entry["id"]?.intValue.flatMap({ Int(exactly: $0) }) else { return nil }
                return Entry(id: id, name: entry["name"]?.stringValue ?? "", type: entry["type"]?.stringValue ?? (key == "tables" ? "Table" : "Feature Layer"),
                             geometryType: entry["geometryType"]?.stringValue)
            }
        }
        self.kind = kind
        name = value["mapName"]?.stringValue ?? value["serviceDescription"]?.stringValue ?? ""
        layers = entries("layers")
        tables = entries("tables")
        let reference = value["spatialReference"]
        spatialReference = SpatialReference.code(ofJSON: reference)
        maxRecordCount = value["maxRecordCount"]?.intValue.flatMap { Int(exactly: $0) }
    }

    /// `…/FeatureServer/layers` (and `MapServer/layers`): every layer's and
    /// table's full description, as ArcGIS lists them.
    public static func layersResource(_ descriptions: [LayerDescription]) -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        writer.appendRaw("{\"layers\":[")
        for (index, layer) in descriptions.filter({ !$0.isTable }).enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendRaw(layer.json())
        }
        writer.appendRaw("],\"tables\":[")
        for (index, table) in descriptions.filter(\.isTable).enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendRaw(table.json())
        }
        writer.appendRaw("]}")
        return writer.bytes
    }

    /// The root as ArcGIS writes it.
    public func json() -> [UInt8] {
        var object = JSONObject()
        object.append(key: "currentVersion", value: .double(11.1))
        object.append(key: "serviceDescription", value: .string(name))
        if kind == .mapServer { object.append(key: "mapName", value: .string(name)) }
        object.append(key: "capabilities", value: .string(kind == .mapServer ? "Map,Query,Data" : "Query"))
        object.append(key: "supportedQueryFormats", value: .string("JSON, geoJSON"))
        if let maxRecordCount { object.append(key: "maxRecordCount", value: .int(Int64(maxRecordCount))) }
        if let spatialReference { object.append(key: "spatialReference", value: LayerDescription.spatialReferenceJSON(spatialReference)) }
        object.append(key: "layers", value: .array(layers.map { entry in
            var item = JSONObject([("id", .int(Int64(entry.id))), ("name", .string(entry.name)), ("parentLayerId", .int(-1)),
                                   ("defaultVisibility", .bool(true)), ("minScale", .int(0)), ("maxScale", .int(0)),
                                   ("type", .string(entry.type))])
            if let geometryType = entry.geometryType { item.append(key: "geometryType", value: .string(geometryType)) }
            return .object(item)
        }))
        object.append(key: "tables", value: .array(tables.map { entry in
            .object(JSONObject([("id", .int(Int64(entry.id))), ("name", .string(entry.name)), ("type", .string(entry.type))]))
        }))
        var writer = JSONWriter(capacity: 512)
        writer.append(.object(object))
        return writer.bytes
    }
}
