/// Getis-Ord Gi* with a fixed distance band and binary weights, exactly as
/// ArcGIS's Hot Spot Analysis computes it (Esri `Gi.py`):
///
///     x̄ = Σx/n,  S = √(Σx²/n − x̄²)   (population SD)
///     Gi* = (Σ_j w_ij x_j − x̄ Σ_j w_ij) / (S √((n Σ_j w_ij² − (Σ_j w_ij)²)/(n − 1)))
///
/// with `w_ij = 1` when `d_ij ≤ band` (the feature itself and coincident
/// features included), else 0. With binary weights Σw² = Σw = W, so
/// Gi* = Σ_{j∈band}(x_j − x̄) / (S √(W(n − W)/(n − 1))); the sum of
/// deviations avoids the cancellation of the textbook form. z is undefined
/// (nil) when a feature has no neighbour but itself (W = 1; ArcGIS writes
/// null) or when every feature is a neighbour (W = n: 0/0).
enum GiStar {
    /// Per-site neighbour sums within `band`: `count` = features within the
    /// band (the site's own included), `deviationSum` = Σ(x − x̄) over them.
    /// The hot loop of the engine: the grid rows in reach of each site are
    /// contiguous runs of slots, scanned with unchecked pointers.
    static func bandSums(grid: SiteGrid, siteDeviationSums: [Double], band: Double, monitor: HotSpotMonitor,
                         progress: (Double) -> Void) throws -> (count: [Double], deviationSum: [Double]) {
        let slotSums = grid.slotOrdered(siteDeviationSums)
        var count = [Double](repeating: 0, count: grid.count)
        var sum = [Double](repeating: 0, count: grid.count)
        let poll = monitor.pollInterval
        let g = grid.geometry
        let r2 = band * band
        let reachDouble = (band / g.cellSize).rounded(.up)
        let reach = reachDouble < Double(max(g.columns, g.rows)) ? Int(reachDouble) : max(g.columns, g.rows)
        try slotSums.withUnsafeBufferPointer { slotSums in
            try grid.slots.withUnsafeBufferPointer { slots in
                try grid.cellStart.withUnsafeBufferPointer { start in
                    try grid.siteOfSlot.withUnsafeBufferPointer { siteOfSlot in
                        try count.withUnsafeMutableBufferPointer { count in
                            try sum.withUnsafeMutableBufferPointer { sum in
                                for slot in 0..<slots.count {
                                    if slot % poll == 0 {
                                        if monitor.shouldStop() { throw CancellationError() }
                                        progress(Double(slot) / Double(max(slots.count, 1)))
                                    }
                                    let q = slots[slot]
                                    let qr = g.row(q.y)
                                    let r0 = max(0, qr - reach), r1 = min(g.rows - 1, qr + reach)
                                    var w = 0.0, s = 0.0
                                    for row in r0...r1 {
                                        let rowLow = g.minN + Double(row) * g.cellSize
                                        let dy = q.y < rowLow ? rowLow - q.y : max(0, q.y - (rowLow + g.cellSize))
                                        if dy * dy > r2 { continue }
                                        // Only the columns the circle reaches in this row.
                                        let halfWidth = (r2 - dy * dy).squareRoot()
                                        let c0 = g.column(q.x - halfWidth), c1 = g.column(q.x + halfWidth)
                                        let base = row * g.columns
                                        var k = Int(start[base + c0])
                                        let upper = Int(start[base + c1 + 1])
                                        while k < upper {
                                            let p = slots[k]
                                            let dx = p.x - q.x, dn = p.y - q.y, du = p.z - q.z
                                            if dx * dx + dn * dn + du * du <= r2 {
                                                w += p.w
                                                s += slotSums[k]
                                            }
                                            k += 1
                                        }
                                    }
                                    let site = Int(siteOfSlot[slot])
                                    count[site] = w
                                    sum[site] = s
                                }
                            }
                        }
                    }
                }
            }
        }
        return (count, sum)
    }

    /// The z-score of a feature whose band holds `count` features (itself
    /// included) with deviations summing to `deviationSum`; `ownCount` is the
    /// number of features at its own location (1 unless duplicated). Nil when
    /// undefined (no other neighbour, or every feature a neighbour).
    @inline(__always)
    static func zScore(count: Double, deviationSum: Double, n: Double, standardDeviation: Double) -> Double? {
        guard count > 1, count < n else { return nil }
        let denominator = standardDeviation * (count * (n - count) / (n - 1)).squareRoot()
        guard denominator > 0 else { return nil }
        return deviationSum / denominator
    }
}
