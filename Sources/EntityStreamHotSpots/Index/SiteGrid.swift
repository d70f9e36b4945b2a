/// Sites bucketed into a uniform grid and stored contiguously by cell
/// (row-major), so a range search reads a few contiguous runs of memory.
///
/// Each slot holds `(e, n, u, multiplicity)`; ``siteOfSlot`` maps a slot
/// back to its site. ``forEachNeighbor(of:radius:_:)`` visits every slot
/// whose 3-D distance to a point is at most the radius (boundary included),
/// scanning, in each grid row within reach, only the columns the circle
/// reaches: O(candidates), no allocation. The
/// grid has at most four cells per site. A value type; read-only after
/// construction.
struct SiteGrid: Sendable {
    let geometry: GridGeometry
    /// First slot of each cell; `cellStart[cellCount]` is the slot count.
    let cellStart: [Int32]
    /// `(e, n, u, multiplicity)` of each slot.
    let slots: [SIMD4<Double>]
    let siteOfSlot: [Int32]

    init(sites: Sites, cellSize: Double) {
        let bounds = sites.bounds
        let geometry = GridGeometry(bounds: bounds, cellSize: cellSize, maximumCells: max(4 * sites.count, 16))
        var start = [Int32](repeating: 0, count: geometry.cellCount + 1)
        var cellOf = [Int32](repeating: 0, count: sites.count)
        for s in 0..<sites.count {
            let c = geometry.cell(sites.e[s], sites.n[s])
            cellOf[s] = Int32(truncatingIfNeeded: c)
            start[c + 1] &+= 1
        }
        for c in 0..<geometry.cellCount { start[c + 1] &+= start[c] }
        var next = start
        var slots = [SIMD4<Double>](repeating: .zero, count: sites.count)
        var siteOfSlot = [Int32](repeating: 0, count: sites.count)
        for s in 0..<sites.count {
            let c = Int(cellOf[s])
            let k = Int(next[c])
            next[c] &+= 1
            slots[k] = SIMD4(sites.e[s], sites.n[s], sites.u[s], Double(sites.multiplicity[s]))
            siteOfSlot[k] = Int32(truncatingIfNeeded: s)
        }
        self.geometry = geometry
        self.cellStart = start
        self.slots = slots
        self.siteOfSlot = siteOfSlot
    }

    var count: Int { slots.count }

    /// `values` (indexed by site) rearranged into slot order.
    func slotOrdered<T>(_ values: [T]) -> [T] {
        siteOfSlot.map { values[Int($0)] }
    }

    /// Calls `body(slot, squaredDistance)` for every slot within `radius` of
    /// `point` (3-D, `point.w` ignored), the point's own slot included.
    @inline(__always)
    func forEachNeighbor(of point: SIMD4<Double>, radius: Double, _ body: (Int, Double) -> Void) {
        let g = geometry
        let r2 = radius * radius
        let reachDouble = (radius / g.cellSize).rounded(.up)
        let reach = reachDouble < Double(max(g.columns, g.rows)) ? Int(reachDouble) : max(g.columns, g.rows)
        let qr = g.row(point.y)
        let r0 = max(0, qr - reach), r1 = min(g.rows - 1, qr + reach)
        cellStart.withUnsafeBufferPointer { start in
            slots.withUnsafeBufferPointer { slots in
                for row in r0...r1 {
                    // Skip rows entirely out of reach.
                    let rowLow = g.minN + Double(row) * g.cellSize
                    let dy = point.y < rowLow ? rowLow - point.y : max(0, point.y - (rowLow + g.cellSize))
                    if dy * dy > r2 { continue }
                    // Only the columns the circle reaches in this row.
                    let halfWidth = (r2 - dy * dy).squareRoot()
                    let c0 = g.column(point.x - halfWidth), c1 = g.column(point.x + halfWidth)
                    let base = row * g.columns
                    let lower = Int(start[base + c0]), upper = Int(start[base + c1 + 1])
                    var k = lower
                    while k < upper {
                        let d = slots[k] - point
                        let d2 = d.x * d.x + d.y * d.y + d.z * d.z
                        if d2 <= r2 { body(k, d2) }
                        k += 1
                    }
                }
            }
        }
    }
}
