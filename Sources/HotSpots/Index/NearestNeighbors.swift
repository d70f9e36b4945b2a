/// Distances to the k-th nearest other feature, computed per site with a
/// ring search over a ``SiteGrid`` sized for about two sites per cell.
///
/// Features count with multiplicity: a feature's neighbours include the other
/// features on its own site (distance 0), so with `m` coincident features the
/// k-th distance is 0 whenever `m − 1 ≥ k`. Each search keeps at most `k`
/// candidates in a sorted scratch buffer (no allocation per site) and stops
/// once no unscanned cell can be closer than the current answer.
enum NearestNeighbors {
    /// The largest k supported (OHSA uses at most 30).
    static let maximumK = 64

    /// For each site, the distance from one of its features to that
    /// feature's k-th nearest other feature, or the farthest one when fewer
    /// than `k` other features exist. `k` is clamped to 1…``maximumK``.
    static func kthDistances(sites: Sites, k requested: Int, monitor: HotSpotMonitor,
                             progress: (Double) -> Void = { _ in }) throws -> [Double] {
        let k = min(max(requested, 1), maximumK)
        let bounds = sites.bounds
        let grid = SiteGrid(sites: sites, cellSize: GridGeometry.cellSize(forOccupancy: 2, count: sites.count, bounds: bounds))
        let g = grid.geometry
        var result = [Double](repeating: 0, count: sites.count)
        var candidateD2 = [Double](repeating: 0, count: k + 1)
        var candidateM = [Double](repeating: 0, count: k + 1)
        let poll = monitor.pollInterval
        try grid.cellStart.withUnsafeBufferPointer { start in
            try grid.slots.withUnsafeBufferPointer { slots in
                for slot in 0..<slots.count {
                    if slot % poll == 0 {
                        if monitor.shouldStop() { throw CancellationError() }
                        progress(Double(slot) / Double(max(slots.count, 1)))
                    }
                    let q = slots[slot]
                    let own = q.w - 1
                    let needed = Double(k) - own
                    if needed <= 0 {
                        result[Int(grid.siteOfSlot[slot])] = 0
                        continue
                    }
                    var held = 0
                    var heldWeight = 0.0
                    var bound = Double.infinity   // squared distance at which `needed` is reached
                    @inline(__always) func consider(_ t: Int) {
                        guard t != slot else { return }
                        let d = slots[t] - q
                        let d2 = d.x * d.x + d.y * d.y + d.z * d.z
                        guard d2 < bound || (bound == .infinity) else { return }
                        // Insert in order.
                        var i = held
                        while i > 0 && candidateD2[i - 1] > d2 {
                            candidateD2[i] = candidateD2[i - 1]
                            candidateM[i] = candidateM[i - 1]
                            i -= 1
                        }
                        candidateD2[i] = d2
                        candidateM[i] = slots[t].w
                        held += 1
                        heldWeight += slots[t].w
                        // Keep the shortest prefix that reaches `needed`.
                        var cumulative = 0.0
                        var j = 0
                        while j < held {
                            cumulative += candidateM[j]
                            if cumulative >= needed { break }
                            j += 1
                        }
                        if j < held {
                            held = j + 1
                            heldWeight = cumulative
                            bound = candidateD2[j]
                        }
                    }
                    let qc = g.column(q.x), qr = g.row(q.y)
                    var ring = 0
                    while true {
                        let c0 = qc - ring, c1 = qc + ring, r0 = qr - ring, r1 = qr + ring
                        for row in max(r0, 0)...min(r1, g.rows - 1) {
                            let base = row * g.columns
                            if row == r0 || row == r1 {
                                let lower = Int(start[base + max(c0, 0)]), upper = Int(start[base + min(c1, g.columns - 1) + 1])
                                for t in lower..<upper { consider(t) }
                            } else {
                                if c0 >= 0 {
                                    for t in Int(start[base + c0])..<Int(start[base + c0 + 1]) { consider(t) }
                                }
                                if c1 < g.columns {
                                    for t in Int(start[base + c1])..<Int(start[base + c1 + 1]) { consider(t) }
                                }
                            }
                        }
                        // Distance from q to the nearest unscanned cell.
                        var gap = Double.infinity
                        if c0 > 0 { gap = min(gap, q.x - (g.minE + Double(c0) * g.cellSize)) }
                        if c1 < g.columns - 1 { gap = min(gap, g.minE + Double(c1 + 1) * g.cellSize - q.x) }
                        if r0 > 0 { gap = min(gap, q.y - (g.minN + Double(r0) * g.cellSize)) }
                        if r1 < g.rows - 1 { gap = min(gap, g.minN + Double(r1 + 1) * g.cellSize - q.y) }
                        if gap == .infinity { break }
                        if bound < .infinity && bound <= gap * gap { break }
                        ring += 1
                    }
                    let answer = bound < .infinity ? bound : (held > 0 ? candidateD2[held - 1] : 0)
                    result[Int(grid.siteOfSlot[slot])] = answer.squareRoot()
                    _ = heldWeight
                }
            }
        }
        return result
    }
}
