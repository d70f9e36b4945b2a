/// Chooses the distance band as Optimized Hot Spot Analysis does when none
/// is given (Esri `OptimizedHotSpotAnalysis.py` → `MoransI_Increment.py`):
///
/// 1. Locational facts (``LocationalOutliers``): ISA starts at the largest
///    nearest-neighbour distance of the non-outliers (× 1.0001) and steps by
///    their mean nearest-neighbour distance, 10 distances.
/// 2. The distances may not pass the standard distance of the distinct
///    locations; if any does, the 10 are spread evenly from the start up to
///    it (the start becoming 0.2 × it when it already exceeds it). Grid data
///    (all non-zero nearest-neighbour distances equal) adds 0.001 to every
///    distance so that no lattice distance sits exactly on a band.
/// 3. Global Moran's I z at each distance (``IncrementalSpatialAutocorrelation``);
///    the first peak above z 1.65 (``PeakDetection``), else the highest peak.
/// 4. No peak, ISA impossible (too few features, no variance at some distance,
///    no spacing between locations) or more than 500 neighbours per feature on
///    average at the largest distance: the mean distance to the k-th nearest
///    neighbour, k = clamp(⌊0.05·n⌋, 3, 30) (at most n − 1), capped at the
///    standard distance of all features.
/// 5. The band is raised to 0.1 % of the larger side of the data's extent.
///
/// Where this differs from ArcGIS (documented choices): ArcGIS aborts when
/// ISA's variance is not positive, here that falls back to step 4; ArcGIS
/// rounds the k-nearest-neighbour band up for display, here it is exact;
/// ArcGIS caps geographic data at 75 % of the extent instead of the standard
/// distance, here both kinds of input use the standard distance (distances
/// here are always linear).
enum DistanceBandSelection {
    static let bandCount = 10
    static let peakLevel = 1.65
    static let maximumAverageNeighbors = 500.0

    static func choose(sites: Sites, values: [Double], monitor: HotSpotMonitor,
                       progress: (Double) -> Void) throws -> DistanceBandDecision {
        let n = values.count
        let bounds = sites.bounds
        let minimum = 0.001 * bounds.maximumExtent
        let nearest = try NearestNeighbors.kthDistances(sites: sites, k: 1, monitor: monitor) { progress(0.1 * $0) }
        let facts = LocationalOutliers(siteDistances: nearest, multiplicity: sites.multiplicity)
        var steps: [MoransIStep] = []
        var failure = ""

        // ISA distances.
        let maximumDistance = standardDistance(e: sites.e, n: sites.n, weights: nil)
        var begin = facts.threshold
        let increment = facts.averageDistance
        if begin > 0 && increment > 0 && maximumDistance > 0 {
            var distances = (0..<bandCount).map { begin + Double($0) * increment }
            if distances.contains(where: { $0 > maximumDistance }) {
                if begin > maximumDistance { begin = 0.2 * maximumDistance }
                let step = (maximumDistance - begin) / Double(bandCount)
                distances = (0..<bandCount).map { begin + Double($0) * step }
            }
            if facts.isGridData { distances = distances.map { $0 + 0.001 } }
            if distances.allSatisfy({ $0 > 0 }), zip(distances, distances.dropFirst()).allSatisfy({ $0 < $1 }) {
                if let result = try IncrementalSpatialAutocorrelation.run(
                    sites: sites, values: values, distances: distances,
                    maximumAverageNeighbors: maximumAverageNeighbors, monitor: monitor,
                    progress: { progress(0.1 + 0.7 * $0) }) {
                    steps = result
                    if let bad = result.first(where: { $0.zScore.isNaN }) {
                        failure = "Global Moran's I is undefined at \(format(bad.distance))"
                    }
                } else {
                    failure = "more than \(Int(maximumAverageNeighbors)) neighbours per feature at \(format(distances[bandCount - 1]))"
                }
            } else {
                failure = "the distances do not increase"
            }
        } else {
            failure = "the locations have no spacing to step through"
        }

        if failure.isEmpty {
            let (first, maximum) = PeakDetection.peaks(steps.map(\.zScore), level: peakLevel)
            if let index = first ?? maximum {
                let isFirst = first != nil
                let step = steps[index]
                var decision = DistanceBandDecision(
                    band: step.distance, choice: isFirst ? .firstPeak(zScore: step.zScore) : .maximumPeak(zScore: step.zScore),
                    reason: "\(isFirst ? "first" : "highest") peak of Global Moran's I (z \(format(step.zScore))) at \(format(step.distance)) over \(bandCount) distances from \(format(steps[0].distance)) by \(format(steps.count > 1 ? steps[1].distance - steps[0].distance : 0))",
                    raisedToMinimum: false, steps: steps, locationalOutliers: facts.outlierCount)
                raise(&decision, to: minimum)
                progress(1)
                return decision
            }
            failure = "no peak of Global Moran's I above z \(format(peakLevel))"
        }

        // k nearest neighbours.
        let k = min(max(n / 20, 3), 30, max(n - 1, 1))
        let kth = try NearestNeighbors.kthDistances(sites: sites, k: k, monitor: monitor) { progress(0.8 + 0.2 * $0) }
        var total = 0.0
        for s in kth.indices { total += Double(sites.multiplicity[s]) * kth[s] }
        let mean = total / Double(max(n, 1))
        let cap = standardDistance(e: sites.e, n: sites.n, weights: sites.multiplicity)
        let capped = cap > 0 && mean > cap
        var decision = DistanceBandDecision(
            band: capped ? cap : mean, choice: .nearestNeighbors(k: k, cappedAtStandardDistance: capped),
            reason: capped
                ? "standard distance \(format(cap)) (\(failure); the mean distance to the \(ordinal(k)) nearest neighbour, \(format(mean)), exceeds it)"
                : "mean distance to the \(ordinal(k)) nearest neighbour (\(failure))",
            raisedToMinimum: false, steps: steps, locationalOutliers: facts.outlierCount)
        raise(&decision, to: minimum)
        progress(1)
        return decision
    }

    private static func raise(_ decision: inout DistanceBandDecision, to minimum: Double) {
        guard decision.band < minimum else { return }
        decision.band = minimum
        decision.raisedToMinimum = true
        decision.reason += ", raised to 0.1 % of the extent (\(format(minimum)))"
    }

    /// √(mean squared distance from the mean centre), in the plane.
    static func standardDistance(e: [Double], n: [Double], weights: [Int32]?) -> Double {
        var total = 0.0, me = 0.0, mn = 0.0
        for i in e.indices {
            let w = weights.map { Double($0[i]) } ?? 1
            total += w
            me += w * e[i]
            mn += w * n[i]
        }
        guard total > 0 else { return 0 }
        me /= total
        mn /= total
        var squares = 0.0
        for i in e.indices {
            let w = weights.map { Double($0[i]) } ?? 1
            squares += w * ((e[i] - me) * (e[i] - me) + (n[i] - mn) * (n[i] - mn))
        }
        return (squares / total).squareRoot()
    }

    static func ordinal(_ k: Int) -> String {
        let suffix: String
        switch (k % 10, k % 100) {
        case (1, let h) where h != 11: suffix = "st"
        case (2, let h) where h != 12: suffix = "nd"
        case (3, let h) where h != 13: suffix = "rd"
        default: suffix = "th"
        }
        return "\(k)\(suffix)"
    }

    /// A distance or z-score for a sentence: 6 significant digits, no exponent for ordinary magnitudes.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let magnitude = abs(value)
        let decimals = magnitude >= 1e5 ? 0 : magnitude >= 1 ? max(0, 5 - Int(magnitude.rounded(.down)).description.count) + 1 : 6
        var text = String(value.rounded(toDecimals: decimals))
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

extension Double {
    func rounded(toDecimals decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
