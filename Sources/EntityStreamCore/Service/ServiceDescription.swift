import EntityStreamProjection
import EntityStreamModel

/// A stream service's description, as `…/StreamServer?f=json` answers it:
/// the fields, the track-id field, the spatial reference and where the
/// WebSocket is (``streamURLs``).
///
/// ``init(json:)`` throws ``ServiceDescriptionError`` for a non-JSON answer,
/// an ArcGIS error object (`{"error":{"code":498,…}}`), or a description
/// without `streamUrls`. Everything else unknown is kept in ``raw``.
public struct ServiceDescription: Sendable, Hashable {
    /// One `streamUrls` entry: a transport (`ws`), its base URLs and token.
    public struct StreamURLs: Sendable, Hashable {
        public var transport: String
        public var urls: [String]
        public var token: String?

        public init(transport: String, urls: [String], token: String? = nil) {
            self.transport = transport
            self.urls = urls
            self.token = token
        }
    }

    public var raw: JSONObject
    public var currentVersion: String?
    public var serviceDescription: String?
    public var capabilities: String?
    public var objectIDField: String?
    public var displayField: String?
    public var globalIDField: String?
    public var trackIDField: String?
    public var startTimeField: String?
    public var endTimeField: String?
    public var geometryType: String?
    public var geometryField: String?
    /// `spatialReference.wkid` (or `latestWkid`).
    public var spatialReference: Int?
    public var fields: [Field]
    public var streamURLs: [StreamURLs]
    /// The `keepLatestArchive` member as given (see ``archive()``).
    public var keepLatestArchive: JSONValue?
    /// The `relatedFeatures` member as given (see ``related()``).
    public var relatedFeatures: JSONValue?

    public init(json bytes: [UInt8]) throws(ServiceDescriptionError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .notJSON(detail: error.description, excerpt: Self.excerpt(bytes))
        }
        guard let object = value.objectValue else { throw .notJSON(detail: "the answer is JSON but not an object", excerpt: Self.excerpt(bytes)) }
        try self.init(object: object)
    }

    /// A description already parsed (e.g. the one a recording holds).
    public init(object: JSONObject) throws(ServiceDescriptionError) {
        if let error = ArcGISError(json: .object(object)) { throw .arcGISError(error) }
        raw = object
        currentVersion = object["currentVersion"].flatMap { $0.stringValue ?? $0.doubleValue.map { String($0) } }
        serviceDescription = object["description"]?.stringValue
        capabilities = object["capabilities"]?.stringValue
        objectIDField = object["objectIdField"]?.stringValue
        displayField = object["displayField"]?.stringValue
        globalIDField = object["globalIdField"]?.stringValue
        trackIDField = object["timeInfo"]?["trackIdField"]?.stringValue
        startTimeField = object["timeInfo"]?["startTimeField"]?.stringValue
        endTimeField = object["timeInfo"]?["endTimeField"]?.stringValue
        geometryType = object["geometryType"]?.stringValue
        geometryField = object["geometryField"]?.stringValue
        spatialReference = SpatialReference.code(ofJSON: object["spatialReference"])
        keepLatestArchive = object["keepLatestArchive"]
        relatedFeatures = object["relatedFeatures"]

        var fields: [Field] = []
        for (index, entry) in (object["fields"]?.arrayValue ?? []).enumerated() {
            guard let name = entry["name"]?.stringValue, !name.isEmpty else {
                throw .invalid("fields[\(index)] has no name")
            }
            fields.append(Field(name: name, type: FieldType(esriName: entry["type"]?.stringValue ?? "esriFieldTypeString"),
                                alias: entry["alias"]?.stringValue, nullable: entry["nullable"]?.boolValue ?? true))
        }
        self.fields = fields

        guard let entries = object["streamUrls"]?.arrayValue, !entries.isEmpty else { throw .missingStreamURLs }
        streamURLs = entries.compactMap { entry in
            guard let urls = entry["urls"]?.arrayValue?.compactMap(\.stringValue), !urls.isEmpty else { return nil }
            return StreamURLs(transport: entry["transport"]?.stringValue ?? "ws", urls: urls, token: entry["token"]?.stringValue)
        }
        guard webSocketEntry != nil else { throw .missingStreamURLs }
    }

    /// The archive to prime from: nil when the description has none; throws
    /// ``ServiceDescriptionError/invalid(_:)`` when the member is malformed.
    public func archive() throws(ServiceDescriptionError) -> KeepLatestArchive? {
        try KeepLatestArchive(json: keepLatestArchive)
    }

    /// The related features to join: nil when the description has none;
    /// throws ``ServiceDescriptionError/invalid(_:)`` when the member is malformed.
    public func related() throws(ServiceDescriptionError) -> RelatedFeatures? {
        try RelatedFeatures(json: relatedFeatures)
    }

    /// The `ws` transport entry (the first with URLs).
    public var webSocketEntry: StreamURLs? {
        streamURLs.first { $0.transport.lowercased() == "ws" }
    }

    /// The WebSocket base URLs, `wss://` ones first, otherwise in the given order.
    public var webSocketURLs: [String] {
        let urls = webSocketEntry?.urls ?? []
        return urls.filter { $0.lowercased().hasPrefix("wss://") } + urls.filter { !$0.lowercased().hasPrefix("wss://") }
    }

    /// The schema observations are decoded with: the declared fields, the
    /// track-id field — the service's, or `override` when given — and the
    /// start/end time fields of `timeInfo` when they are declared fields.
    public func schema(trackIDFieldOverride override: String? = nil) throws(ServiceDescriptionError) -> Schema {
        var schema = Schema(fields: fields, startTimeField: startTimeField, endTimeField: endTimeField)
        let available = fields.map(\.name)
        if let name = override ?? trackIDField {
            if let index = schema.index(ofField: name) {
                schema.trackIDIndex = index
            } else if fields.isEmpty {
                // No declared fields: learn them from the data; the track field will appear.
                schema.trackIDIndex = schema.appendField(Field(name: name, type: .string))
            } else {
                throw .unknownTrackIDField(name: name, available: available)
            }
        } else {
            throw .noTrackIDField(available: available)
        }
        return schema
    }

    private static func excerpt(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(120), as: UTF8.self)
        return text.replacingLineBreaks() + (bytes.count > 120 ? "…" : "")
    }
}

extension String {
    func replacingLineBreaks() -> String {
        String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
