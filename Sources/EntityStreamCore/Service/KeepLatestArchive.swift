import EntityStreamModel
/// A stream service's `keepLatestArchive` member: a feature layer holding the
/// last known observation per track ("Store Latest"), which clients query
/// before opening the socket to prime their view (ArcGIS JS 4
/// `_queryArchive`).
///
/// Shape: `{"featuresUrl":"…/FeatureServer/0","maximumFeatureAge":0,"updateInterval":30}`
/// — `maximumFeatureAge` in seconds (0 = never), `updateInterval` in
/// milliseconds; both optional and informational. ``init(json:)`` answers
/// nil for an absent or `null` member and throws
/// ``ServiceDescriptionError/invalid(_:)`` naming the problem for any other
/// shape (not an object, no `featuresUrl` string). A plain value.
public struct KeepLatestArchive: Sendable, Hashable {
    /// The archive layer's REST URL.
    public var featuresURL: String
    /// Seconds after which the archive drops a track (0 = never), when given.
    public var maximumFeatureAge: Double?
    /// How often the archive is updated, milliseconds, when given.
    public var updateInterval: Double?

    public init(featuresURL: String, maximumFeatureAge: Double? = nil, updateInterval: Double? = nil) {
        self.featuresURL = featuresURL
        self.maximumFeatureAge = maximumFeatureAge
        self.updateInterval = updateInterval
    }

    /// The member's value as the description holds it (nil or `null`: no archive).
    public init?(json value: JSONValue?) throws(ServiceDescriptionError) {
        guard let value, !value.isNull else { return nil }
        guard value.objectValue != nil else { throw .invalid("keepLatestArchive must be an object or null, not \(value)") }
        guard let url = value["featuresUrl"]?.stringValue, !url.isEmpty else {
            throw .invalid("keepLatestArchive has no 'featuresUrl' string")
        }
        featuresURL = url
        maximumFeatureAge = value["maximumFeatureAge"]?.doubleValue
        updateInterval = value["updateInterval"]?.doubleValue
    }
}
