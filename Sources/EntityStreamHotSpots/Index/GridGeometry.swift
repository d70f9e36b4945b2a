/// The shape of a uniform grid over a rectangle of the analysis plane: an
/// origin, a square cell size and the number of columns and rows, row-major.
///
/// The requested cell size is doubled until the grid has at most
/// `maximumCells` cells, so a grid never costs more memory than its caller
/// allows whatever the extent and cell size. Coordinates outside the
/// rectangle clamp to the border cells. A value type.
struct GridGeometry: Sendable {
    let minE: Double
    let minN: Double
    let cellSize: Double
    let columns: Int
    let rows: Int

    var cellCount: Int { columns * rows }

    init(bounds: PlaneBounds, cellSize requested: Double, maximumCells: Int) {
        let spanE = bounds.maxE - bounds.minE, spanN = bounds.maxN - bounds.minN
        var size = requested
        if !(size > 0) || !size.isFinite { size = max(spanE, spanN, 1) }
        let limit = Double(max(maximumCells, 1))
        var columns = 1.0, rows = 1.0
        while true {
            columns = (spanE / size).rounded(.down) + 1
            rows = (spanN / size).rounded(.down) + 1
            if columns * rows <= limit { break }
            size *= 2
        }
        minE = bounds.minE
        minN = bounds.minN
        cellSize = size
        self.columns = Int(columns)
        self.rows = Int(rows)
    }

    @inline(__always) func column(_ e: Double) -> Int {
        let c = (e - minE) / cellSize
        return c < 0 ? 0 : (c >= Double(columns) ? columns - 1 : Int(c))
    }

    @inline(__always) func row(_ n: Double) -> Int {
        let r = (n - minN) / cellSize
        return r < 0 ? 0 : (r >= Double(rows) ? rows - 1 : Int(r))
    }

    @inline(__always) func cell(_ e: Double, _ n: Double) -> Int { row(n) * columns + column(e) }

    /// A cell size that puts about `occupancy` of `count` points in each cell
    /// of `bounds` (for nearest-neighbour searches).
    static func cellSize(forOccupancy occupancy: Double, count: Int, bounds: PlaneBounds) -> Double {
        let spanE = bounds.maxE - bounds.minE, spanN = bounds.maxN - bounds.minN
        let n = Double(max(count, 1))
        if spanE > 0 && spanN > 0 { return (spanE * spanN * occupancy / n).squareRoot() }
        let span = max(spanE, spanN)
        return span > 0 ? span * occupancy / n : 1
    }
}

/// The bounding rectangle of points in the analysis plane.
struct PlaneBounds: Sendable, Hashable {
    var minE: Double
    var maxE: Double
    var minN: Double
    var maxN: Double

    /// The bounds of `e`, `n` (zeros when empty).
    init(e: [Double], n: [Double]) {
        guard !e.isEmpty else {
            self.init(minE: 0, maxE: 0, minN: 0, maxN: 0)
            return
        }
        var minE = e[0], maxE = e[0], minN = n[0], maxN = n[0]
        for i in e.indices {
            minE = min(minE, e[i]); maxE = max(maxE, e[i])
            minN = min(minN, n[i]); maxN = max(maxN, n[i])
        }
        self.init(minE: minE, maxE: maxE, minN: minN, maxN: maxN)
    }

    init(minE: Double, maxE: Double, minN: Double, maxN: Double) {
        self.minE = minE
        self.maxE = maxE
        self.minN = minN
        self.maxN = maxN
    }

    /// The larger side (ArcGIS's "maximum extent").
    var maximumExtent: Double { max(maxE - minE, maxN - minN) }
}
