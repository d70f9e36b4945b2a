/// What a ``FeatureQueryEngine`` answers, ready for ``FeatureSetWriter``.
public enum FeatureQueryResult: Sendable {
    /// A page of features.
    case features(FeatureSelection)
    /// `returnCountOnly`.
    case count(Int)
    /// `returnIdsOnly`: the object-id field's name and the ids, in query order.
    case objectIDs(fieldName: String, [Int64])
    /// A statistics query's rows.
    case statistics(FeatureStatisticsResult)
}

/// One page of a query's features: which rows of the table, which fields,
/// geometry or not and in which spatial reference, and whether more rows
/// matched than the page holds. A value referencing the table (no copy).
public struct FeatureSelection: Sendable {
    public let table: FeatureTable
    /// Row indices of the page, in the order to send.
    public let rows: [Int]
    /// Output fields as schema indices, in schema order (the object id always included).
    public let fieldIndices: [Int]
    public let returnGeometry: Bool
    /// The output spatial reference (the table's unless `outSR` asked otherwise); nil for tables.
    public let spatialReference: Int?
    /// True when more rows matched than `resultOffset` + the page.
    public let exceededTransferLimit: Bool
    /// How many rows matched the query in all.
    public let matchCount: Int

    public init(table: FeatureTable, rows: [Int], fieldIndices: [Int], returnGeometry: Bool, spatialReference: Int?,
                exceededTransferLimit: Bool, matchCount: Int) {
        self.table = table
        self.rows = rows
        self.fieldIndices = fieldIndices
        self.returnGeometry = returnGeometry
        self.spatialReference = spatialReference
        self.exceededTransferLimit = exceededTransferLimit
        self.matchCount = matchCount
    }

    /// Row `row`'s point in ``spatialReference`` (nil for a null geometry).
    public func geometry(ofRow row: Int) -> Point? {
        guard let point = table.geometry(at: row) else { return nil }
        guard let target = spatialReference, target != table.spatialReference else { return point }
        return WebMercator.convert(point, to: target, assuming: table.spatialReference) ?? point
    }
}
