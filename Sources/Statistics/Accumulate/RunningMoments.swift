/// Count, mean and sum of squared deviations (M2) of a stream of doubles,
/// updated one value at a time with Welford's algorithm and combined with
/// Chan, Golub & LeVeque's parallel formula, so the variance never suffers
/// the cancellation of the sum-of-squares form. A plain value type.
@usableFromInline
struct RunningMoments: Sendable, Hashable {
    @usableFromInline var count: Int64 = 0
    @usableFromInline var mean: Double = 0
    @usableFromInline var m2: Double = 0

    @inlinable init() {}

    @inlinable @inline(__always)
    mutating func add(_ x: Double) {
        count &+= 1
        let delta = x - mean
        mean += delta / Double(count)
        m2 += delta * (x - mean)
    }

    /// Combines with the moments of another, disjoint part of the data
    /// (Chan et al. 1979): δ = mean_b − mean_a,
    /// mean = mean_a + δ·n_b/n, M2 = M2_a + M2_b + δ²·n_a·n_b/n.
    mutating func merge(_ other: RunningMoments) {
        if other.count == 0 { return }
        if count == 0 { self = other; return }
        let na = Double(count), nb = Double(other.count)
        let n = na + nb
        let delta = other.mean - mean
        mean += delta * (nb / n)
        m2 += other.m2 + delta * delta * (na * nb / n)
        count &+= other.count
    }

    /// The sample variance (divisor n − 1), nil for fewer than two values;
    /// never negative.
    var sampleVariance: Double? {
        guard count >= 2 else { return nil }
        return Swift.max(0, m2 / Double(count - 1))
    }
}
