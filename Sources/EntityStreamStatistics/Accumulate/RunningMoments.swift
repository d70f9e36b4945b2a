/// Count and the shifted sums Σ(x − K) and Σ(x − K)² of a stream of doubles,
/// in double-double precision, for the sample variance of ill-conditioned
/// data (values near 10¹⁵ that differ in their last bits) to the last
/// digits a double holds.
///
/// Why not Welford: its running mean is rounded to the data's magnitude
/// (an ulp of 10¹⁵ is 0.125), and each update's error is of the order of
/// that ulp squared, so data near 10¹⁵ in quarter steps came out up to 21 %
/// off (DuckDB's answer, also Welford, is off the same way).
///
/// How: the shift K is the first value; each x − K is taken exactly as a
/// pair of doubles (TwoSum), its square exactly up to 2⁻¹⁰⁶ (FMA), and both
/// are summed with Neumaier compensation into (sum, compensation) pairs.
/// The variance (Σd² − (Σd)²/n)/(n − 1) is then formed in double-double
/// arithmetic, where the subtraction's cancellation (at most about n² for
/// any data, since K is one of the values) still leaves far more than 53
/// correct bits. Merging re-shifts the other side's sums to this side's K
/// exactly (δ = K_b − K_a as a double-double): accumulators of disjoint
/// chunks merged in any order give the single pass's answer to the last
/// bit or two. A plain value type.
@usableFromInline
struct RunningMoments: Sendable, Hashable {
    @usableFromInline var count: Int64 = 0
    /// K: the first value added.
    @usableFromInline var shift: Double = 0
    /// Σ(x − K) and Σ(x − K)² as Neumaier (sum, compensation) pairs.
    @usableFromInline var s1 = DoubleDouble()
    @usableFromInline var s2 = DoubleDouble()

    @inlinable init() {}

    @inlinable @inline(__always)
    mutating func add(_ x: Double) {
        if count == 0 { shift = x }
        count &+= 1
        // d = x − K exactly: hi + lo (TwoSum).
        let exact = DoubleDouble.twoSum(x, -shift)
        s1.accumulate(exact.hi, exact.lo)
        // d² = hi² (exact with FMA) + 2·hi·lo (+ lo², below 2⁻¹⁰⁶ of it).
        let square = exact.hi * exact.hi
        let squareError = (-square).addingProduct(exact.hi, exact.hi) + 2 * exact.hi * exact.lo
        s2.accumulate(square, squareError)
    }

    /// Combines with the moments of another, disjoint part of the data:
    /// with δ = K_b − K_a, Σ_b(x − K_a) = Σ_b d + n_b·δ and
    /// Σ_b(x − K_a)² = Σ_b d² + 2δ·Σ_b d + n_b·δ², in double-double.
    mutating func merge(_ other: RunningMoments) {
        if other.count == 0 { return }
        if count == 0 { self = other; return }
        let delta = DoubleDouble.twoSum(other.shift, -shift)
        let nb = Double(other.count)
        let b1 = other.s1.normalized, b2 = other.s2.normalized
        let shifted1 = b1 + delta * nb
        let shifted2 = b2 + (delta * b1) * 2 + (delta * delta) * nb
        s1 = s1.normalized + shifted1
        s2 = s2.normalized + shifted2
        count &+= other.count
    }

    /// The sample variance (divisor n − 1), nil for fewer than two values;
    /// never negative; NaN when a value is infinite.
    var sampleVariance: Double? {
        guard count >= 2 else { return nil }
        let n = Double(count)
        let sum = s1.normalized
        let m2 = s2.normalized - (sum * sum) / n
        return Swift.max(0, (m2 / (n - 1)).value)
    }
}

/// An unevaluated sum hi + lo of two doubles (about 106 bits), with the
/// error-free transformations and the few operations ``RunningMoments``
/// needs. `accumulate` is Neumaier's compensated addition (fast, for the
/// per-value path; ``normalized`` turns the pair back into a proper
/// double-double); the operators are the usual double-double algorithms
/// (Dekker, Knuth; products with FMA). A plain value.
@usableFromInline
struct DoubleDouble: Sendable, Hashable {
    @usableFromInline var hi: Double
    @usableFromInline var lo: Double

    @inlinable init(hi: Double = 0, lo: Double = 0) {
        self.hi = hi
        self.lo = lo
    }

    /// a + b exactly (Knuth's TwoSum).
    @inlinable @inline(__always)
    static func twoSum(_ a: Double, _ b: Double) -> DoubleDouble {
        let s = a + b
        let bb = s - a
        return DoubleDouble(hi: s, lo: (a - (s - bb)) + (b - bb))
    }

    /// a · b exactly (FMA).
    @inlinable @inline(__always)
    static func product(_ a: Double, _ b: Double) -> DoubleDouble {
        let p = a * b
        return DoubleDouble(hi: p, lo: (-p).addingProduct(a, b))
    }

    /// Adds the value x + xLow (Neumaier: the rounding error of each addition is collected in `lo`).
    @inlinable @inline(__always)
    mutating func accumulate(_ x: Double, _ xLow: Double) {
        let t = hi + x
        if hi.magnitude >= x.magnitude {
            lo += (hi - t) + x + xLow
        } else {
            lo += (x - t) + hi + xLow
        }
        hi = t
    }

    /// The same value with |lo| ≤ half an ulp of hi.
    @inlinable var normalized: DoubleDouble { Self.twoSum(hi, lo) }

    /// The value rounded to a double.
    @inlinable var value: Double { hi + lo }

    static func + (x: DoubleDouble, y: DoubleDouble) -> DoubleDouble {
        let s = twoSum(x.hi, y.hi)
        let t = twoSum(x.lo, y.lo)
        let u = twoSum(s.hi, s.lo + t.hi)
        return twoSum(u.hi, u.lo + t.lo)
    }

    static func - (x: DoubleDouble, y: DoubleDouble) -> DoubleDouble {
        x + DoubleDouble(hi: -y.hi, lo: -y.lo)
    }

    static func * (x: DoubleDouble, y: Double) -> DoubleDouble {
        let p = product(x.hi, y)
        return twoSum(p.hi, p.lo + x.lo * y)
    }

    static func * (x: DoubleDouble, y: DoubleDouble) -> DoubleDouble {
        let p = product(x.hi, y.hi)
        return twoSum(p.hi, p.lo + (x.hi * y.lo + x.lo * y.hi))
    }

    static func / (x: DoubleDouble, y: Double) -> DoubleDouble {
        let q1 = x.hi / y
        let r = x - product(q1, y)
        let q2 = r.hi / y
        let r2 = r - product(q2, y)
        return twoSum(q1, q2) + DoubleDouble(hi: r2.hi / y, lo: 0)
    }
}
