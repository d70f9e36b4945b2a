import EntityStreamModel
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
        // Members that do not apply are omitted, never null (as ArcGIS writes them).
        if let startTimeField { object.append(key: "startTimeField", value: .string(startTimeField)) }
        if let endTimeField { object.append(key: "endTimeField", value: .string(endTimeField)) }
        if let trackIDField { object.append(key: "trackIdField", value: .string(trackIDField)) }
        if let timeExtent, let start = timeExtent.start, let end = timeExtent.end {
            object.append(key: "timeExtent", value: .array([.int(start), .int(end)]))
        }
        var reference = JSONObject()
        if let timeZone { reference.append(key: "timeZone", value: .string(timeZone)) }
        reference.append(key: "respectsDaylightSaving", value: .bool(respectsDaylightSaving))
        object.append(key: "timeReference", value: .object(reference))
        object.append(key: "timeRelation", value: .string("esriTimeRelationOverlaps"))
        return .object(object)
    }
}
