import EntityStreamCore

/// Writes a service's `StreamServer?f=json` answer: what ArcGIS GeoEvent
/// answers, with `streamUrls` pointing back at this simulator.
enum DescriptionBuilder {
    /// `archiveURL`: the `keepLatestArchive.featuresUrl` (nil: `null`);
    /// `related`: the `relatedFeatures` layer and join field (nil: `null`).
    static func json(for service: SimulatedService, socketBase: String, token: String?, archiveURL: String? = nil,
                     related: (url: String, joinField: String)? = nil) -> [UInt8] {
        var object = JSONObject()
        object.append(key: "currentVersion", value: .double(11.1))
        object.append(key: "serviceItemId", value: .string(service.name))
        object.append(key: "description", value: .string(service.description))
        object.append(key: "capabilities", value: .string("broadcast,subscribe"))
        object.append(key: "objectIdField", value: .null)
        object.append(key: "displayField", value: service.schema.trackIDField.map { .string($0.name) } ?? .null)
        var timeInfo = JSONObject()
        timeInfo.append(key: "trackIdField", value: service.schema.trackIDField.map { .string($0.name) } ?? .null)
        timeInfo.append(key: "startTimeField", value: service.schema.fields.first { $0.type == .date }.map { .string($0.name) } ?? .null)
        timeInfo.append(key: "endTimeField", value: .null)
        object.append(key: "timeInfo", value: .object(timeInfo))
        object.append(key: "geometryType", value: .string("esriGeometryPoint"))
        object.append(key: "geometryField", value: .string("Geometry"))
        object.append(key: "spatialReference", value: .object(JSONObject([("wkid", .int(Int64(service.spatialReference))),
                                                                             ("latestWkid", .int(Int64(service.spatialReference)))])))
        object.append(key: "fields", value: .array(service.schema.fields.map { field in
            .object(JSONObject([("name", .string(field.name)), ("type", .string(field.type.esriName)),
                                ("alias", .string(field.alias ?? field.name)), ("nullable", .bool(field.nullable))]))
        }))
        var urls = JSONObject()
        urls.append(key: "transport", value: .string("ws"))
        urls.append(key: "urls", value: .array([.string(socketBase)]))
        if let token { urls.append(key: "token", value: .string(token)) }
        object.append(key: "streamUrls", value: .array([.object(urls)]))
        object.append(key: "keepLatestArchive", value: archiveURL.map { url in
            .object(JSONObject([("featuresUrl", .string(url)), ("maximumFeatureAge", .int(0)), ("updateInterval", .int(30))]))
        } ?? .null)
        object.append(key: "relatedFeatures", value: related.map { related in
            .object(JSONObject([("featuresUrl", .string(related.url)), ("joinField", .string(related.joinField))]))
        } ?? .null)
        var writer = JSONWriter(capacity: 4096)
        writer.append(.object(object))
        return writer.bytes
    }

    /// An ArcGIS error object (`{"error":{"code":498,…}}`).
    static func error(code: Int, message: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.append(.object(JSONObject([("error", .object(JSONObject([
            ("code", .int(Int64(code))), ("message", .string(message)), ("details", .array([])),
        ])))])))
        return writer.bytes
    }
}
