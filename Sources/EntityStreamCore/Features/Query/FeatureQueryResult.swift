import Projection

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
/// matched than the page holds. A value referencing the table; when the
/// output reference differs from the table's, the page's points are
/// converted once, in one PROJ batch, when the selection is made.
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
    /// The page's points in ``spatialReference``, by position, when that
    /// differs from the table's (nil: the table's points as they are).
    private let converted: [Point?]?

    public init(table: FeatureTable, rows: [Int], fieldIndices: [Int], returnGeometry: Bool, spatialReference: Int?,
                exceededTransferLimit: Bool, matchCount: Int) {
        self.table = table
        self.rows = rows
        self.fieldIndices = fieldIndices
        self.returnGeometry = returnGeometry
        self.spatialReference = spatialReference
        self.exceededTransferLimit = exceededTransferLimit
        self.matchCount = matchCount
        converted = returnGeometry ? Self.convert(rows, of: table, to: spatialReference) : nil
    }

    /// The point of the page's `position`-th row in ``spatialReference``
    /// (nil for a null geometry, or one PROJ cannot transform).
    public func geometry(at position: Int) -> Point? {
        if let converted { return converted[position] }
        return table.geometry(at: rows[position])
    }

    /// The points of `rows` in `target`, or nil when no conversion is needed.
    private static func convert(_ rows: [Int], of table: FeatureTable, to target: Int?) -> [Point?]? {
        guard let target = SpatialReference(code: target), let source = SpatialReference(code: table.spatialReference), source != target else {
            return nil
        }
        var points: [Point] = []
        var present: [Bool] = []
        points.reserveCapacity(rows.count)
        present.reserveCapacity(rows.count)
        for row in rows {
            let point = table.geometry(at: row)
            present.append(point != nil)
            points.append(point ?? Point(x: .nan, y: .nan, wkid: source.code))
        }
        // The engine checked the pair; a point PROJ cannot transform becomes NaN, written as no geometry.
        _ = try? Point.convert(&points, to: target, assuming: source)
        return points.indices.map { index in present[index] && points[index].x.isFinite && points[index].y.isFinite ? points[index] : nil }
    }
}
