import EntityStreamCore
import EntityStreamModel

/// Writes a service's `StreamServer?f=json` answer: what ArcGIS GeoEvent
/// answers, with `streamUrls` pointing back at this simulator.
enum DescriptionBuilder {
    /// `archiveURL`: the `keepLatestArchive.featuresUrl`; `related`: the
    /// `relatedFeatures` layer and join field. Members that do not apply
    /// (no archive, no related table, no time field) are omitted, never null.
    static func json(for service: SimulatedService, socketBase: String, token: String?, archiveURL: String? = nil,
                     related: (url: String, joinField: String)? = nil) -> [UInt8] {
        var object = JSONObject()
        object.append(key: "currentVersion", value: .double(11.1))
        object.append(key: "serviceItemId", value: .string(service.name))
        object.append(key: "description", value: .string(service.description))
        object.append(key: "capabilities", value: .string("broadcast,subscribe"))
        if let track = service.schema.trackIDField { object.append(key: "displayField", value: .string(track.name)) }
        var timeInfo = JSONObject()
        if let track = service.schema.trackIDField { timeInfo.append(key: "trackIdField", value: .string(track.name)) }
        // The schema's own time fields (a relayed stream's), else its first date field (a recording's, the fleet's).
        if let start = service.schema.startTimeField ?? service.schema.fields.first(where: { $0.type == .date }) {
            timeInfo.append(key: "startTimeField", value: .string(start.name))
        }
        if let end = service.schema.endTimeField { timeInfo.append(key: "endTimeField", value: .string(end.name)) }
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
        if let archiveURL {
            object.append(key: "keepLatestArchive", value: .object(JSONObject([("featuresUrl", .string(archiveURL)), ("maximumFeatureAge", .int(0)),
                                                                               ("updateInterval", .int(30))])))
        }
        if let related {
            object.append(key: "relatedFeatures", value: .object(JSONObject([("featuresUrl", .string(related.url)), ("joinField", .string(related.joinField))])))
        }
        var writer = JSONWriter(capacity: 4096)
        writer.append(.object(object))
        return writer.bytes
    }

    /// An ArcGIS error object (`{"error":{"code":498,…}}`).
    /// `/arcgis/rest/info`: the server's version and how it authenticates
    /// (token-based when a token is required; the simulator has no token
    /// service, so clients bring the token they were given).
    static func restInfo(tokenRequired: Bool) -> [UInt8] {
        var authentication = JSONObject([("isTokenBasedSecurity", .bool(tokenRequired))])
        if tokenRequired { authentication.append(key: "shortLivedTokenValidity", value: .int(60)) }
        var writer = JSONWriter(capacity: 256)
        writer.append(.object(JSONObject([
            ("currentVersion", .double(11.1)), ("fullVersion", .string("11.1.0")), ("owningSystemUrl", .string("")),
            ("authInfo", .object(authentication)),
        ])))
        return writer.bytes
    }

    static func error(code: Int, message: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.append(.object(JSONObject([("error", .object(JSONObject([
            ("code", .int(Int64(code))), ("message", .string(message)), ("details", .array([])),
        ])))])))
        return writer.bytes
    }
}
