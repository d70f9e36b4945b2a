import EntityStreamModel
/// A stream service's `relatedFeatures` member: a static feature layer or
/// table whose rows are joined to observations by ``joinField`` (ArcGIS JS 4
/// `_enrich`; Runtime's `relatedFeaturesURL` / `relatedFeaturesJoinField`).
///
/// Shape: `{"featuresUrl":"…/FeatureServer/0","joinField":"vehiclename","outFields":"*"}`
/// — `outFields` optional (a comma list or an array; absent or `*`: every
/// field). ``init(json:)`` answers nil for an absent or `null` member and
/// throws ``ServiceDescriptionError/invalid(_:)`` naming the problem for any
/// other shape (not an object, no `featuresUrl` or `joinField` string). A
/// plain value.
public struct RelatedFeatures: Sendable, Hashable {
    /// The related layer's REST URL.
    public var featuresURL: String
    /// The field both the observations and the related rows carry (the track id in practice).
    public var joinField: String
    /// The related fields to fetch; nil for every field.
    public var outFields: [String]?

    public init(featuresURL: String, joinField: String, outFields: [String]? = nil) {
        self.featuresURL = featuresURL
        self.joinField = joinField
        self.outFields = outFields
    }

    /// The member's value as the description holds it (nil or `null`: none).
    public init?(json value: JSONValue?) throws(ServiceDescriptionError) {
        guard let value, !value.isNull else { return nil }
        guard value.objectValue != nil else { throw .invalid("relatedFeatures must be an object or null, not \(value)") }
        guard let url = value["featuresUrl"]?.stringValue, !url.isEmpty else {
            throw .invalid("relatedFeatures has no 'featuresUrl' string")
        }
        guard let joinField = value["joinField"]?.stringValue, !joinField.isEmpty else {
            throw .invalid("relatedFeatures has no 'joinField' string")
        }
        featuresURL = url
        self.joinField = joinField
        var fields: [String]?
        if let list = value["outFields"], !list.isNull {
            if let text = list.stringValue {
                fields = text.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
            } else if let items = list.arrayValue {
                fields = items.compactMap(\.stringValue)
            } else {
                throw .invalid("relatedFeatures.outFields must be a comma list or an array of names")
            }
            if fields?.contains("*") == true || fields?.isEmpty == true { fields = nil }
        }
        outFields = fields
    }
}
