/// `Gi_Bin`: the confidence level of each z-score, signed like z.
///
/// ±3 = 99 %, ±2 = 95 %, ±1 = 90 %, 0 = not significant (or no p-value).
/// - Plain (Hot Spot Analysis without FDR): level α ∈ {0.10, 0.05, 0.01}
///   is reached when `p ≤ α`.
/// - FDR (Optimized Hot Spot Analysis, Esri `Stats.fdrTransform`):
///   Benjamini–Hochberg step-up at each α separately over the `m` features
///   that have a p-value: with p sorted ascending, the largest rank k with
///   `p_(k) ≤ k/m·α` is found and every feature with `p ≤ p_(k)` reaches α.
///   This is `statsmodels.multipletests(p, α, 'fdr_bh')` per level, not
///   `esda.fdr` (which compares with `<` and falls back to α/m).
/// The comparison is `≤` at both (ArcGIS's own is not documented). Only the
/// bins depend on FDR; z and p never do. Sorting touches only p ≤ 0.10.
enum SignificanceBins {
    static let levels: [Double] = [0.10, 0.05, 0.01]

    /// The bins for `pValues` (NaN = no p-value) with signs from `zScores`.
    static func bins(zScores: [Double], pValues: [Double], fdr: Bool) -> [Int8] {
        var thresholds = levels
        if fdr { thresholds = fdrThresholds(pValues) }
        var bins = [Int8](repeating: 0, count: pValues.count)
        for i in pValues.indices {
            let p = pValues[i]
            guard !p.isNaN else { continue }
            var level: Int8 = 0
            if p <= thresholds[2] { level = 3 } else if p <= thresholds[1] { level = 2 } else if p <= thresholds[0] { level = 1 }
            if level > 0 {
                let z = zScores[i]
                bins[i] = z > 0 ? level : (z < 0 ? -level : 0)
            }
        }
        return bins
    }

    /// For each level α, the largest p that passes Benjamini–Hochberg at α
    /// (−1 when none does): every p at or below it is significant at α.
    static func fdrThresholds(_ pValues: [Double]) -> [Double] {
        var m = 0
        var candidates: [Double] = []
        for p in pValues where !p.isNaN {
            m += 1
            if p <= levels[0] { candidates.append(p) }
        }
        candidates.sort()
        return levels.map { alpha in
            var threshold = -1.0
            let step = alpha / Double(max(m, 1))
            for (index, p) in candidates.enumerated() where p <= Double(index + 1) * step {
                threshold = p
            }
            return threshold
        }
    }
}
