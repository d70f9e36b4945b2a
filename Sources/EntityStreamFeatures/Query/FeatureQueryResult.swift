import EntityStreamProjection
import EntityStreamModel
import EntityStreamCore

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
    /// `returnExtentOnly`: the matches' bounding box (nil when none has a
    /// point) in the output spatial reference, with the count when
    /// `returnCountOnly` was set too.
    case extent(Envelope?, spatialReference: Int?, count: Int?)
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
    /// `geometryPrecision`: output coordinates rounded to this many decimals.
    public var geometryPrecision: Int?
    /// `quantizationParameters`: output coordinates on this integer grid.
    public var quantization: QuantizationParameters?
    /// Polygons written instead of the rows' points (a layer whose features
    /// are polygons, such as a hot-spot result's fishnet cells, selected by
    /// its own rules and paged by the engine); nil for point layers.
    public var polygons: RowPolygons?
    /// `returnQueryExtent`: the answer carries ``queryExtent``.
    public var asksQueryExtent = false
    /// `returnQueryExtent`: the extent of every match (not only this page; nil when none has a point).
    public var queryExtent: Envelope?

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

    /// The page's `position`-th point as written: in ``spatialReference``,
    /// rounded to ``geometryPrecision`` decimals (nil for a null geometry).
    public func outputGeometry(at position: Int) -> Point? {
        guard var point = geometry(at: position) else { return nil }
        if let digits = geometryPrecision {
            point.x = Self.round(point.x, digits: digits)
            point.y = Self.round(point.y, digits: digits)
        }
        return point
    }

    /// `value` rounded to `digits` decimals (half away from zero).
    public static func round(_ value: Double, digits: Int) -> Double {
        var scale = 1.0
        for _ in 0..<min(max(digits, 0), 17) { scale *= 10 }
        let scaled = value * scale
        guard scaled.isFinite, abs(scaled) < 9.0e15 else { return value }
        return scaled.rounded(.toNearestOrAwayFromZero) / scale
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

/// The polygons of a layer's rows, by row index: each a list of closed
/// rings of `(x, y)` pairs (outer rings clockwise, as Esri JSON has them),
/// in the layer's spatial reference. A plain value.
public struct RowPolygons: Sendable {
    public let rings: [[[AnalysisGeometry.Coordinate]]]

    public init(rings: [[[AnalysisGeometry.Coordinate]]]) {
        self.rings = rings
    }

    /// The bounds of row `row`'s polygon (nil when it has none).
    public func bounds(ofRow row: Int) -> Envelope? {
        guard row >= 0, row < rings.count else { return nil }
        var box: Envelope?
        for ring in rings[row] {
            for corner in ring { box = Envelope.including(box, x: corner.x, y: corner.y) }
        }
        return box
    }

    /// The bounds of every polygon of `rows` (nil when none has one).
    public func bounds(ofRows rows: some Sequence<Int>, wkid: Int?) -> Envelope? {
        var box: Envelope?
        for row in rows {
            guard let cell = bounds(ofRow: row) else { continue }
            box = Envelope.including(Envelope.including(box, x: cell.xmin, y: cell.ymin), x: cell.xmax, y: cell.ymax)
        }
        box?.wkid = wkid
        return box
    }
}
