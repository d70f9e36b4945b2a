/// Nearest-neighbour facts about the analysed features, as ArcGIS's
/// `SSUtilities.LocationInfo` computes them (standard deviations 3, zero
/// distances excluded from the outlier test):
///
/// - d_i = distance from each feature to its nearest other feature (0 for
///   coincident features);
/// - with mean μ and population SD σ of the NON-ZERO d_i, a feature is a
///   locational outlier when (d_i − μ)/σ ≥ 3;
/// - `threshold` = the largest d_i of the non-outliers × 1.0001 (every
///   non-outlier then has a neighbour), `averageDistance` = the mean d_i of
///   the non-outliers (zeros included). When σ = 0 nothing is an outlier and
///   the data counts as grid data.
struct LocationalOutliers: Sendable {
    let threshold: Double
    let averageDistance: Double
    let outlierCount: Int
    let isGridData: Bool
    let nonZeroMean: Double
    let nonZeroMedian: Double
    /// Features with a non-zero nearest-neighbour distance.
    let nonZeroCount: Int

    /// From each site's nearest-neighbour distance, its features counted with
    /// `multiplicity`.
    init(siteDistances d: [Double], multiplicity: [Int32]) {
        var nonZeroCount = 0.0, nonZeroSum = 0.0
        var allCount = 0.0, allSum = 0.0, allMax = 0.0
        for s in d.indices {
            let m = Double(multiplicity[s])
            allCount += m
            allSum += m * d[s]
            allMax = max(allMax, d[s])
            if d[s] != 0 {
                nonZeroCount += m
                nonZeroSum += m * d[s]
            }
        }
        let mean = nonZeroCount > 0 ? nonZeroSum / nonZeroCount : 0
        var squares = 0.0
        for s in d.indices where d[s] != 0 { squares += Double(multiplicity[s]) * (d[s] - mean) * (d[s] - mean) }
        let sd = nonZeroCount > 0 ? (squares / nonZeroCount).squareRoot() : 0
        var threshold = allMax, average = allCount > 0 ? allSum / allCount : 0
        var outliers = 0
        if sd > 0 {
            var includedCount = 0.0, includedSum = 0.0, includedMax = 0.0
            for s in d.indices {
                let m = Double(multiplicity[s])
                if (d[s] - mean) / sd < 3 {
                    includedCount += m
                    includedSum += m * d[s]
                    includedMax = max(includedMax, d[s])
                } else {
                    outliers += Int(multiplicity[s])
                }
            }
            threshold = includedMax
            average = includedCount > 0 ? includedSum / includedCount : 0
        }
        self.threshold = threshold * 1.0001
        self.averageDistance = average
        self.outlierCount = outliers
        self.isGridData = nonZeroCount > 0 && sd == 0
        self.nonZeroMean = mean
        self.nonZeroCount = Int(nonZeroCount)
        // Median of the non-zero distances, each counted with its multiplicity
        // (the mean of the two middle values for an even count).
        let sorted = d.indices.filter { d[$0] != 0 }.sorted { d[$0] < d[$1] }
        func valueAt(_ rank: Int) -> Double {
            var seen = 0
            for s in sorted {
                seen += Int(multiplicity[s])
                if seen > rank { return d[s] }
            }
            return 0
        }
        let total = Int(nonZeroCount)
        if total == 0 {
            nonZeroMedian = 0
        } else if total % 2 == 1 {
            nonZeroMedian = valueAt(total / 2)
        } else {
            nonZeroMedian = (valueAt(total / 2 - 1) + valueAt(total / 2)) / 2
        }
    }
}
