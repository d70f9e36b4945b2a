import EntityStreamModel
/// Joins a ``RelatedTable`` to a stream's observations by the join field,
/// as the ArcGIS JS StreamLayer does with `relatedFeatures`.
///
/// ``schema`` is the stream's schema with the related fields it lacks
/// appended (in the related layer's order), so where clauses and output can
/// name them; fields the stream already has are not added — on a name
/// clash the stream's own value wins. ``join(_:)`` fills the appended fields
/// of an observation whose join value has a related row; an observation
/// without a match (or without a join value) passes unchanged (its related
/// fields read null). The join never overwrites a value the observation
/// already carries. Cost per observation: one dictionary lookup, and a write
/// into the attribute array the decoder already sized for ``schema`` (no
/// allocation when the observation's array is uniquely referenced).
/// A plain value; `Sendable`.
public struct RelatedFeatureJoin: Sendable {
    /// The stream schema plus the related-only fields.
    public let schema: Schema
    /// The related rows.
    public let table: RelatedTable
    /// The join field's index in ``schema``.
    public let keyIndex: Int
    /// `(related field index, schema index)` for each appended field.
    private let targets: [(source: Int, target: Int)]

    /// - Throws: ``RelatedFeaturesError`` when the stream has no field named
    ///   like the table's join field.
    public init(streamSchema: Schema, table: RelatedTable) throws(RelatedFeaturesError) {
        guard let keyIndex = streamSchema.index(ofField: table.joinField) else {
            throw .noJoinFieldInStream(table.joinField, fields: streamSchema.fields.map(\.name))
        }
        var schema = streamSchema
        var targets: [(source: Int, target: Int)] = []
        for (source, field) in table.schema.fields.enumerated() where streamSchema.index(ofField: field.name) == nil {
            var added = field
            if added.type == .objectID { added.type = .integer }   // not the stream's object id
            targets.append((source, schema.appendField(added)))
        }
        self.schema = schema
        self.table = table
        self.keyIndex = keyIndex
        self.targets = targets
    }

    /// The names of the fields the join adds, in order.
    public var joinedFieldNames: [String] { targets.map { schema.fields[$0.target].name } }

    /// Fills `observation`'s related fields from its row; false when no row matches.
    @discardableResult
    public func join(_ observation: inout Observation) -> Bool {
        guard !targets.isEmpty, let row = table.row(for: observation.attribute(keyIndex)) else { return false }
        let needed = schema.fields.count
        // Mutated in place, through one access (a decoded observation's values
        // are in its slab: each read of `attributes` would make an array).
        func fill(_ values: inout [AttributeValue]) {
            if values.count < needed {
                values.append(contentsOf: repeatElement(.null, count: needed - values.count))
            }
            for (source, target) in targets where source < row.count && values[target].isNull {
                values[target] = row[source]
            }
        }
        fill(&observation.attributes)
        return true
    }

    /// Joins every observation (and non-point feature) of `messages` in
    /// place; returns how many found a related row.
    @discardableResult
    public func join(_ messages: inout [StreamMessage]) -> Int {
        var matched = 0
        for index in messages.indices {
            let found = messages[index].updateObservation { join(&$0) }
            if found == true { matched &+= 1 }
        }
        return matched
    }
}

extension StreamMessage {
    /// Runs `body` on the observation an `.observation` or
    /// `.nonPointGeometry` message carries, in place (the message's
    /// reference is released first, so the attribute array stays unique and
    /// is not copied); nil for other messages.
    @inlinable
    public mutating func updateObservation<Result>(_ body: (inout Observation) -> Result) -> Result? {
        switch self {
        case .observation(var observation):
            self = .filterReply(JSONObject())
            let result = body(&observation)
            self = .observation(observation)
            return result
        case .nonPointGeometry(let kind, var observation):
            self = .filterReply(JSONObject())
            let result = body(&observation)
            self = .nonPointGeometry(kind: kind, observation)
            return result
        case .delete, .filterReply:
            return nil
        }
    }
}
