import EntityStreamFeatures
import EntityStreamModel

extension FeatureTable {
    /// The rows `filter` passes, in a table begun from `empty` (this
    /// table's layout), their assigned object ids numbered after `base` as
    /// they are here. How a scan filters on object ids it assigns itself:
    /// they exist only once the rows of the chunks before are counted, so
    /// the filter cannot run while the chunk is parsed.
    func rows(passing filter: FeatureRowFilter, idsAfter base: Int64,
              into empty: FeatureTableBuilder) throws(FeatureTableError) -> FeatureTable {
        var kept = empty
        var positions: [Int] = []
        var failure: FeatureTableError?
        withRowValues { values, width in
            guard let start = values.baseAddress else { return }
            for row in 0..<count where failure == nil {
                let point = geometry(at: row)
                guard filter.passes(FeatureTableRowValues(base: start + row &* width, width: width), point: point) else { continue }
                do throws(FeatureTableError) {
                    try kept.append(geometry: point, values: Array(UnsafeBufferPointer(start: start + row &* width, count: width)))
                } catch { failure = error }
                positions.append(row)
            }
        }
        if let failure { throw failure }
        kept.numberAssignedObjectIDs(after: base, positions: positions)
        return kept.build()
    }
}
