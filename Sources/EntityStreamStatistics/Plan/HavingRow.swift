import EntityStreamModel
import EntityStreamWhere

/// A group record seen by a having clause: synthetic field `i` is the
/// computed output `outputIndices[i]`.
struct HavingRow: AttributeRow {
    let values: [AttributeValue]
    let outputIndices: [Int]

    func value(at fieldIndex: Int) -> AttributeValue {
        guard outputIndices.indices.contains(fieldIndex) else { return .null }
        let output = outputIndices[fieldIndex]
        return values.indices.contains(output) ? values[output] : .null
    }
}
