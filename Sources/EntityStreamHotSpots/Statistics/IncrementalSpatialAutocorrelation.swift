/// One distance of an Incremental Spatial Autocorrelation run: Global
/// Moran's I with row-standardised binary weights at that distance.
public struct MoransIStep: Sendable, Hashable {
    public var distance: Double
    /// Moran's I.
    public var index: Double
    /// E[I] = −1/(n−1).
    public var expected: Double
    /// Var[I] under randomisation (with the kurtosis b2).
    public var variance: Double
    /// (I − E[I])/√Var[I]; NaN when undefined.
    public var zScore: Double
    /// Features with at least one neighbour at this distance (the others sit out).
    public var featureCount: Int
}

/// Global Moran's I over a series of distance bands, as ArcGIS's
/// `MoransI_Increment.GlobalI_Step` (row-standardised, Euclidean, binary
/// weights within each band, the feature itself excluded):
///
/// - at each distance, features without a neighbour sit out: n, the mean,
///   Σdev² and Σdev⁴ are over the others;
/// - I = Σ_i Σ_j w_ij z_i z_j / Σ z_i² with w_ij = 1/c_i (c_i = neighbours);
/// - S1 = ½ Σ_i Σ_j (w_ij + w_ji)², S2 = Σ_i (Σ_j w_ij + Σ_j w_ji)², S0 = n;
/// - b2 = (Σz⁴/n)/(Σz²/n)², E[I] = −1/(n−1),
///   E[I²] = [n((n²−3n+3)S1 − nS2 + 3S0²) − b2((n²−n)S1 − 2nS2 + 6S0²)] / ((n−1)(n−2)(n−3)S0²),
///   Var = E[I²] − E[I]², z = (I − E[I])/√Var.
///
/// Two passes over the neighbour pairs within the largest distance, per site
/// (coincident features weigh by multiplicity); memory O(sites × bands).
enum IncrementalSpatialAutocorrelation {
    /// The steps, or nil when the average number of neighbours at the
    /// largest distance exceeds `maximumAverageNeighbors` (ArcGIS passes
    /// `stopMax = 500` and then falls back to nearest neighbours). The first
    /// pass stops as soon as the budget is exceeded, so the work is bounded
    /// by about 500 pairs per feature whatever the distances.
    static func run(sites: Sites, values y: [Double], distances: [Double], maximumAverageNeighbors: Double,
                    monitor: HotSpotMonitor, progress: (Double) -> Void) throws -> [MoransIStep]? {
        let bands = distances.count
        guard bands > 0, let largest = distances.last, largest > 0 else { return nil }
        let grid = SiteGrid(sites: sites, cellSize: largest / 2)
        let slotCount = grid.count
        var slotOfSite = [Int32](repeating: 0, count: slotCount)
        for slot in 0..<slotCount { slotOfSite[Int(grid.siteOfSlot[slot])] = Int32(truncatingIfNeeded: slot) }
        let squared = distances.map { $0 * $0 }
        let featureCount = Double(y.count)
        let poll = monitor.pollInterval

        // Values centred on their overall mean (keeps the sums below precise).
        var overall = 0.0
        for v in y { overall += v }
        overall /= max(featureCount, 1)
        var y1 = [Double](repeating: 0, count: slotCount)   // Σ y' per slot
        var y2 = [Double](repeating: 0, count: slotCount)   // Σ y'² per slot
        for i in y.indices {
            let slot = Int(slotOfSite[Int(sites.siteOfFeature[i])])
            let v = y[i] - overall
            y1[slot] += v
            y2[slot] += v * v
        }

        let squaredBuffer = UnsafeMutablePointer<Double>.allocate(capacity: bands)
        defer { squaredBuffer.deallocate() }
        for b in 0..<bands { squaredBuffer[b] = squared[b] }
        @inline(__always) func firstBand(_ d2: Double) -> Int {
            var b = 0
            while d2 > squaredBuffer[b] { b += 1 }
            return b
        }

        // Pass 1: features within each distance (own site included), per slot.
        var within = [Double](repeating: 0, count: slotCount * bands)
        var pairs = 0.0
        let budget = maximumAverageNeighbors * featureCount
        try grid.slots.withUnsafeBufferPointer { slots in
            try within.withUnsafeMutableBufferPointer { within in
                guard let counts = within.baseAddress else { return }
                for slot in 0..<slotCount {
                    if slot % poll == 0 {
                        if monitor.shouldStop() { throw CancellationError() }
                        progress(0.4 * Double(slot) / Double(max(slotCount, 1)))
                    }
                    let row = counts + slot * bands
                    grid.forEachNeighbor(of: slots[slot], radius: largest) { t, d2 in
                        row[firstBand(d2)] += slots[t].w
                    }
                    for b in 1..<max(bands, 1) { row[b] += row[b - 1] }
                    pairs += slots[slot].w * (row[bands - 1] - 1)
                    if pairs > budget { return }   // bounded work: give up early
                }
            }
        }
        if pairs > budget { return nil }

        // Per distance: features with neighbours, their mean, Σdev², Σdev⁴.
        var n = [Double](repeating: 0, count: bands)
        var mean = [Double](repeating: 0, count: bands)
        for slot in 0..<slotCount {
            let m = grid.slots[slot].w
            for b in 0..<bands where within[slot * bands + b] - 1 >= 1 {
                n[b] += m
                mean[b] += y1[slot]
            }
        }
        for b in 0..<bands where n[b] > 0 { mean[b] /= n[b] }
        var sum2 = [Double](repeating: 0, count: bands)
        var sum4 = [Double](repeating: 0, count: bands)
        for i in y.indices {
            let slot = Int(slotOfSite[Int(sites.siteOfFeature[i])])
            let v = y[i] - overall
            for b in 0..<bands where within[slot * bands + b] - 1 >= 1 {
                let dev = v - mean[b]
                let dev2 = dev * dev
                sum2[b] += dev2
                sum4[b] += dev2 * dev2
            }
        }
        // From here on `within` holds 1/c (c = neighbours, the feature itself
        // excluded), 0 where a site has none: pass 2 multiplies instead of dividing.
        for k in within.indices {
            let c = within[k] - 1
            within[k] = c >= 1 ? 1 / c : 0
        }

        // Pass 2: the cross-products, S1 and S2.
        var numerator = [Double](repeating: 0, count: bands)
        var s1 = [Double](repeating: 0, count: bands)
        var s2 = [Double](repeating: 0, count: bands)
        let scratch = UnsafeMutablePointer<Double>.allocate(capacity: 3 * bands)
        defer { scratch.deallocate() }
        let neighborSum = scratch, inverseSum = scratch + bands, inverseSquareSum = scratch + 2 * bands
        try grid.slots.withUnsafeBufferPointer { slots in
            try within.withUnsafeBufferPointer { inverses in
                try y1.withUnsafeBufferPointer { y1 in
                    guard let inverses = inverses.baseAddress else { return }
                    for slot in 0..<slotCount {
                        if slot % poll == 0 {
                            if monitor.shouldStop() { throw CancellationError() }
                            progress(0.4 + 0.6 * Double(slot) / Double(max(slotCount, 1)))
                        }
                        let own = inverses + slot * bands
                        guard own[bands - 1] > 0 else { continue }
                        scratch.update(repeating: 0, count: 3 * bands)
                        grid.forEachNeighbor(of: slots[slot], radius: largest) { t, d2 in
                            let mt = slots[t].w, yt = y1[t], other = inverses + t * bands
                            var b = firstBand(d2)
                            while b < bands {
                                let inverse = other[b]
                                if inverse > 0 {
                                    neighborSum[b] += yt
                                    inverseSum[b] += mt * inverse
                                    inverseSquareSum[b] += mt * inverse * inverse
                                }
                                b += 1
                            }
                        }
                        let m = slots[slot].w
                        for b in 0..<bands {
                            let inverse = own[b]
                            guard inverse > 0 else { continue }
                            let c = (1 / inverse).rounded()
                            // The features of this site see their own site's other features, not themselves.
                            let t = inverseSum[b] - inverse
                            let q = inverseSquareSum[b] - inverse * inverse
                            let k = neighborSum[b] - c * mean[b]
                            numerator[b] += (k * (y1[slot] - mean[b] * m) - (y2[slot] - mean[b] * y1[slot])) * inverse
                            s1[b] += 0.5 * m * (inverse + 2 * t * inverse + q)
                            s2[b] += m * (1 + t) * (1 + t)
                        }
                    }
                }
            }
        }

        return (0..<bands).map { b in
            let count = n[b]
            let expected = -1 / (count - 1)
            let index = numerator[b] / sum2[b]
            let s0 = count
            let b2 = (sum4[b] / count) / ((sum2[b] / count) * (sum2[b] / count))
            let left = count * ((count * count - 3 * count + 3) * s1[b] - count * s2[b] + 3 * s0 * s0)
            let right = b2 * ((count * count - count) * s1[b] - 2 * count * s2[b] + 6 * s0 * s0)
            let expectedSquare = (left - right) / ((count - 1) * (count - 2) * (count - 3) * s0 * s0)
            let variance = expectedSquare - expected * expected
            let z = count > 3 && variance > 0 && sum2[b] > 0 ? (index - expected) / variance.squareRoot() : .nan
            return MoransIStep(distance: distances[b], index: index, expected: expected, variance: variance,
                               zScore: z, featureCount: Int(count))
        }
    }
}
