import EntityStreamFeatures
import EntityStreamModel

/// A table's row as plain values: object id, point, then every field; what
/// the scan tests compare with the rows they wrote.
struct PlainRow: Sendable, Equatable, CustomStringConvertible {
    var objectID: Int64
    var x: Double?
    var y: Double?
    var values: [AttributeValue]
    var description: String { "\(objectID) (\(x.map { "\($0)" } ?? "-") \(y.map { "\($0)" } ?? "-")) \(values)" }
}

/// Every row of `table` as a ``PlainRow``.
func plainRows(_ table: FeatureTable) -> [PlainRow] {
    (0..<table.count).map { row in
        let point = table.geometry(at: row)
        return PlainRow(objectID: table.objectID(at: row), x: point?.x, y: point?.y,
                        values: table.schema.fields.indices.map { table.value(row: row, field: $0) })
    }
}
