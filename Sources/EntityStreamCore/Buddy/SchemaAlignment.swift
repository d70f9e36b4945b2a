import EntityStreamModel
/// Re-aligns observations decoded with one schema (a feature layer's answer)
/// to another (the stream's), matching fields by name, ASCII
/// case-insensitively, as ArcGIS does.
///
/// A value of a matched field moves to the target's index, typed for the
/// target field: an integral number in an integer field becomes `.int`, a
/// number in a float field `.double`, an integral number in a date field
/// `.date` (epoch ms); anything else keeps its type. Target fields the
/// source lacks read null. Source fields the target lacks are not carried
/// (listed in ``unmatchedFields``: the archive's object id, typically).
/// Geometry and receive time are kept. A plain value; linear in the fields.
public struct SchemaAlignment: Sendable {
    /// The schema aligned observations follow.
    public let target: Schema
    /// For each source field, its target index (nil: not carried).
    private let targetIndex: [Int?]
    /// Source fields the target does not have, in source order.
    public let unmatchedFields: [String]

    public init(from source: Schema, to target: Schema) {
        self.target = target
        var indices: [Int?] = []
        var unmatched: [String] = []
        for field in source.fields {
            let index = target.index(ofField: field.name)
            indices.append(index)
            if index == nil { unmatched.append(field.name) }
        }
        targetIndex = indices
        unmatchedFields = unmatched
    }

    /// `observation` (aligned to the source schema) aligned to ``target``.
    public func align(_ observation: Observation) -> Observation {
        var values = [AttributeValue](repeating: .null, count: target.fields.count)
        let count = min(observation.attributeCount, targetIndex.count)
        for source in 0..<count {
            guard let index = targetIndex[source] else { continue }
            values[index] = Self.coerce(observation.attribute(source), to: target.fields[index].type)
        }
        return Observation(geometry: observation.geometry, attributes: values, receivedAt: observation.receivedAt)
    }

    /// `value` typed for a field of type `type` (see the type's contract).
    public static func coerce(_ value: AttributeValue, to type: FieldType) -> AttributeValue {
        switch (type, value) {
        case (.integer, .double(let d)), (.smallInteger, .double(let d)), (.bigInteger, .double(let d)), (.objectID, .double(let d)):
            return Int64(exactly: d).map { .int($0) } ?? value
        case (.double, .int(let i)), (.single, .int(let i)):
            return .double(Double(i))
        case (.date, .int(let i)):
            return .date(milliseconds: i)
        case (.date, .double(let d)):
            return Int64(exactly: d).map { .date(milliseconds: $0) } ?? value
        default:
            return value
        }
    }
}
