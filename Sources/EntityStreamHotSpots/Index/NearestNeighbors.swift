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
        var best = KBest(capacity: k + 1)
        defer { best.deallocate() }
        let poll = monitor.pollInterval
        try grid.cellStart.withUnsafeBufferPointer { start in
            try grid.slots.withUnsafeBufferPointer { slots in
                for slot in 0..<slots.count {
                    if slot % poll == 0 {
                        if monitor.shouldStop() { throw CancellationError() }
                        progress(Double(slot) / Double(max(slots.count, 1)))
                    }
                    let q = slots[slot]
                    let needed = Double(k) - (q.w - 1)
                    if needed <= 0 {
                        result[Int(grid.siteOfSlot[slot])] = 0
                        continue
                    }
                    best.reset(needed: needed)
                    let qc = g.column(q.x), qr = g.row(q.y)
                    var ring = 0
                    while true {
                        let c0 = qc - ring, c1 = qc + ring, r0 = qr - ring, r1 = qr + ring
                        for row in max(r0, 0)...min(r1, g.rows - 1) {
                            let base = row * g.columns
                            if row == r0 || row == r1 {
                                let lower = Int(start[base + max(c0, 0)]), upper = Int(start[base + min(c1, g.columns - 1) + 1])
                                for t in lower..<upper where t != slot { best.consider(slots[t], from: q) }
                            } else {
                                if c0 >= 0 {
                                    for t in Int(start[base + c0])..<Int(start[base + c0 + 1]) where t != slot { best.consider(slots[t], from: q) }
                                }
                                if c1 < g.columns {
                                    for t in Int(start[base + c1])..<Int(start[base + c1 + 1]) where t != slot { best.consider(slots[t], from: q) }
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
                        if best.bound < .infinity && best.bound <= gap * gap { break }
                        ring += 1
                    }
                    result[Int(grid.siteOfSlot[slot])] = best.answer.squareRoot()
                }
            }
        }
        return result
    }
}

/// The nearest candidates of one search, sorted by squared distance, trimmed
/// to the shortest prefix whose multiplicities reach `needed` (fixed storage,
/// reused for every search).
struct KBest {
    private let d2: UnsafeMutablePointer<Double>
    private let weight: UnsafeMutablePointer<Double>
    private var held = 0
    private var needed = 1.0
    /// The squared distance at which `needed` is reached (∞ until then).
    private(set) var bound = Double.infinity

    init(capacity: Int) {
        d2 = .allocate(capacity: capacity)
        weight = .allocate(capacity: capacity)
    }

    func deallocate() {
        d2.deallocate()
        weight.deallocate()
    }

    mutating func reset(needed: Double) {
        held = 0
        self.needed = needed
        bound = .infinity
    }

    /// The answer: the bound, or the farthest candidate when fewer features exist.
    var answer: Double { bound < .infinity ? bound : (held > 0 ? d2[held - 1] : 0) }

    @inline(__always)
    mutating func consider(_ p: SIMD4<Double>, from q: SIMD4<Double>) {
        let dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z
        let distance = dx * dx + dy * dy + dz * dz
        guard distance < bound else { return }
        var i = held
        while i > 0 && d2[i - 1] > distance {
            d2[i] = d2[i - 1]
            weight[i] = weight[i - 1]
            i -= 1
        }
        d2[i] = distance
        weight[i] = p.w
        held += 1
        var cumulative = 0.0
        var j = 0
        while j < held {
            cumulative += weight[j]
            if cumulative >= needed { break }
            j += 1
        }
        if j < held {
            held = j + 1
            bound = d2[j]
        }
    }
}
