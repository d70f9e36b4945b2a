/// A fishnet of square cells over the incidents, as Optimized Hot Spot
/// Analysis lays it without bounding polygons (Esri `FishnetInfo`):
///
/// - origin = the lower-left corner of the incidents' extent (in the analysis
///   plane: the input's own coordinates for projected input, the local
///   east-north plane in metres for geographic input);
/// - `columns = ⌊width/cellSize⌋ + 1`, `rows = ⌊height/cellSize⌋ + 1`;
/// - cell (c, r) covers [origin + c·size, origin + (c+1)·size) in each
///   direction, so every incident is counted in exactly one cell (ArcGIS's
///   spatial join counts a point on a shared edge in both cells; here the
///   counts always add up to the incidents);
/// - only cells holding incidents become features (OHSA without a boundary
///   deletes `Join_Count = 0` cells: without a study area, an empty cell
///   cannot be told from a place where incidents cannot happen).
///
/// The default cell size is OHSA's `scaleDecision` on the distinct incident
/// locations: the larger of the mean and the median nearest-neighbour
/// distance, times the larger of 2 and the ratio of the larger to the smaller
/// of the two. (ArcGIS Pro's newer rule is not public.)
public struct Fishnet: Sendable, Hashable {
    /// Lower-left corner in the analysis plane.
    public let originE: Double
    public let originN: Double
    public let cellSize: Double
    public let columns: Int
    public let rows: Int
    /// Why this cell size: "given" or the nearest-neighbour rule with its figures.
    public let cellSizeReason: String

    /// Rows and columns are limited to this many each.
    public static let maximumDimension = 1 << 31 - 1

    init(bounds: PlaneBounds, cellSize: Double, reason: String) throws(HotSpotError) {
        let columns = ((bounds.maxE - bounds.minE) / cellSize).rounded(.down) + 1
        let rows = ((bounds.maxN - bounds.minN) / cellSize).rounded(.down) + 1
        guard columns <= Double(Fishnet.maximumDimension), rows <= Double(Fishnet.maximumDimension) else {
            throw .fishnetTooLarge(columns: columns, rows: rows, limit: Fishnet.maximumDimension)
        }
        originE = bounds.minE
        originN = bounds.minN
        self.cellSize = cellSize
        self.columns = Int(columns)
        self.rows = Int(rows)
        cellSizeReason = reason
    }

    /// The cell holding a plane point (clamped into the fishnet).
    @inline(__always)
    func cell(e: Double, n: Double) -> (column: Int, row: Int) {
        let c = ((e - originE) / cellSize).rounded(.down), r = ((n - originN) / cellSize).rounded(.down)
        return (Int(min(max(c, 0), Double(columns - 1))), Int(min(max(r, 0), Double(rows - 1))))
    }

    /// The centre of a cell in the plane.
    func centre(column: Int, row: Int) -> (e: Double, n: Double) {
        (originE + (Double(column) + 0.5) * cellSize, originN + (Double(row) + 0.5) * cellSize)
    }

    /// The corners of a cell in the plane, clockwise from the lower left, closed.
    func corners(column: Int, row: Int) -> [(e: Double, n: Double)] {
        let e0 = originE + Double(column) * cellSize, n0 = originN + Double(row) * cellSize
        let e1 = e0 + cellSize, n1 = n0 + cellSize
        return [(e0, n0), (e0, n1), (e1, n1), (e1, n0), (e0, n0)]
    }

    /// OHSA's default cell size from the nearest-neighbour distances of the
    /// distinct incident locations.
    static func defaultCellSize(mean: Double, median: Double) -> (size: Double, reason: String) {
        let larger = max(mean, median), smaller = min(mean, median)
        let ratio = smaller > 0 ? larger / smaller : 2
        let scale = max(2, ratio)
        let which = mean > median ? "mean" : "median"
        return (larger * scale,
                "\(which) nearest-neighbour distance of the distinct incident locations (\(DistanceBandSelection.format(larger))) × \(DistanceBandSelection.format(scale))")
    }

    /// Counts incidents (plane positions) per occupied cell, cells ordered by
    /// row then column. Returns the cells and their counts.
    func count(e: [Double], n: [Double]) -> (cells: [(column: Int32, row: Int32)], counts: [Int32]) {
        var keys = [Int](repeating: 0, count: e.count)
        for i in e.indices {
            let cell = cell(e: e[i], n: n[i])
            keys[i] = cell.row &* columns &+ cell.column
        }
        keys.sort()
        var cells: [(column: Int32, row: Int32)] = []
        var counts: [Int32] = []
        var k = 0
        while k < keys.count {
            var m = k + 1
            while m < keys.count && keys[m] == keys[k] { m += 1 }
            cells.append((Int32(truncatingIfNeeded: keys[k] % columns), Int32(truncatingIfNeeded: keys[k] / columns)))
            counts.append(Int32(truncatingIfNeeded: m - k))
            k = m
        }
        return (cells, counts)
    }
}
