/// A layer's `timeInfo`: which fields hold time and the data's time extent.
///
/// JSON: `{"startTimeField":…,"endTimeField":…,"trackIdField":…,
/// "timeExtent":[startMs,endMs],"timeReference":{"timeZone":"UTC","respectsDaylightSaving":false},
/// "timeRelation":"esriTimeRelationOverlaps"}`; null fields and an absent extent
/// are allowed. A plain value.
public struct LayerTimeInfo: Sendable, Hashable {
    public var startTimeField: String?
    public var endTimeField: String?
    public var trackIDField: String?
    /// The data's time extent (`timeExtent`), when known.
    public var timeExtent: TimeExtent?
    /// `timeReference.timeZone` (nil: UTC, as ArcGIS means it).
    public var timeZone: String?
    public var respectsDaylightSaving: Bool

    public init(startTimeField: String?, endTimeField: String? = nil, trackIDField: String? = nil, timeExtent: TimeExtent? = nil,
                timeZone: String? = "UTC", respectsDaylightSaving: Bool = false) {
        self.startTimeField = startTimeField
        self.endTimeField = endTimeField
        self.trackIDField = trackIDField
        self.timeExtent = timeExtent
        self.timeZone = timeZone
        self.respectsDaylightSaving = respectsDaylightSaving
    }

    /// Reads a `timeInfo` object; nil for null or a non-object.
    public init?(json value: JSONValue?) {
        guard let value, value.objectValue != nil else { return nil }
        startTimeField = value["startTimeField"]?.stringValue
        endTimeField = value["endTimeField"]?.stringValue
        trackIDField = value["trackIdField"]?.stringValue
        if let bounds = value["timeExtent"]?.arrayValue, bounds.count == 2 {
            let start = bounds[0].doubleValue.flatMap { try? Instant.milliseconds($0, text: "\($0)") }
            let end = bounds[1].doubleValue.flatMap { try? Instant.milliseconds($0, text: "\($0)") }
            timeExtent = try? TimeExtent(start: start, end: end)
        } else {
            timeExtent = nil
        }
        timeZone = value["timeReference"]?["timeZone"]?.stringValue
        respectsDaylightSaving = value["timeReference"]?["respectsDaylightSaving"]?.boolValue ?? false
    }

    /// The `timeInfo` object.
    public var json: JSONValue {
        var object = JSONObject()
        object.append(key: "startTimeField", value: startTimeField.map(JSONValue.string) ?? .null)
        object.append(key: "endTimeField", value: endTimeField.map(JSONValue.string) ?? .null)
        object.append(key: "trackIdField", value: trackIDField.map(JSONValue.string) ?? .null)
        object.append(key: "timeExtent", value: timeExtent.map { .array([$0.start.map(JSONValue.int) ?? .null, $0.end.map(JSONValue.int) ?? .null]) } ?? .null)
        object.append(key: "timeReference", value: .object(JSONObject([
            ("timeZone", timeZone.map(JSONValue.string) ?? .null), ("respectsDaylightSaving", .bool(respectsDaylightSaving)),
        ])))
        object.append(key: "timeRelation", value: .string("esriTimeRelationOverlaps"))
        return .object(object)
    }
}
