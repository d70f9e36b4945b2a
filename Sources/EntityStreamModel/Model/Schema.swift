/// The ordered field list that observations' attribute values align to, plus
/// which field is the track id and which fields carry the observations' own
/// time (the service's `timeInfo.startTimeField` / `endTimeField`).
///
/// Field lookup is case-insensitive (ArcGIS field names are). A schema only
/// grows: ``appendField(_:)`` adds a field at the end, so indices handed out
/// earlier stay valid. This matters when a recording without a service
/// description is replayed and fields are learned from the data.
public struct Schema: Sendable, Hashable {
    public private(set) var fields: [Field]
    /// Index of the track-id field in ``fields``, if the service has one.
    public var trackIDIndex: Int?
    /// Index of the start-time field (`timeInfo.startTimeField`), if any.
    public var startTimeIndex: Int?
    /// Index of the end-time field (`timeInfo.endTimeField`), if any; with a
    /// start field, observations are intervals.
    public var endTimeIndex: Int?
    private var indexByFoldedName: [String: Int]

    public init(fields: [Field], trackIDField: String? = nil, startTimeField: String? = nil, endTimeField: String? = nil) {
        self.fields = []
        self.trackIDIndex = nil
        self.indexByFoldedName = [:]
        for field in fields { appendField(field) }
        if let trackIDField { trackIDIndex = index(ofField: trackIDField) }
        if let startTimeField { startTimeIndex = index(ofField: startTimeField) }
        if let endTimeField { endTimeIndex = index(ofField: endTimeField) }
    }

    /// The index of the field named `name`, compared case-insensitively.
    public func index(ofField name: String) -> Int? {
        indexByFoldedName[Schema.fold(name)]
    }

    /// Adds `field` at the end and returns its index; if a field of that name
    /// (case-insensitively) exists, returns the existing index unchanged.
    @discardableResult
    public mutating func appendField(_ field: Field) -> Int {
        let key = Schema.fold(field.name)
        if let existing = indexByFoldedName[key] { return existing }
        fields.append(field)
        indexByFoldedName[key] = fields.count - 1
        return fields.count - 1
    }

    /// The track-id field, if any.
    public var trackIDField: Field? { trackIDIndex.map { fields[$0] } }

    /// The start-time field, if any.
    public var startTimeField: Field? { startTimeIndex.map { fields[$0] } }

    /// The end-time field, if any.
    public var endTimeField: Field? { endTimeIndex.map { fields[$0] } }

    /// ASCII case folding, which is what ArcGIS field-name comparison needs.
    public static func fold(_ name: String) -> String {
        var bytes = Array(name.utf8)
        var changed = false
        for i in bytes.indices where bytes[i] >= 65 && bytes[i] <= 90 {
            bytes[i] += 32
            changed = true
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : name
    }
}
