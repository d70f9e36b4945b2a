/// A running sum of doubles with Neumaier's compensation (Kahan–Babuška):
/// the rounding error of every addition is collected in ``compensation``,
/// so the result ``value`` is as accurate as summing in twice the precision,
/// whatever the order and magnitudes. (SQLite's `sum`/`avg` use the same
/// scheme, which is why results agree to the last bits on real data.)
/// A plain value type.
@usableFromInline
struct CompensatedSum: Sendable, Hashable {
    @usableFromInline var sum: Double = 0
    @usableFromInline var compensation: Double = 0

    @inlinable init() {}

    @inlinable @inline(__always)
    mutating func add(_ x: Double) {
        let t = sum + x
        if sum.magnitude >= x.magnitude {
            compensation += (sum - t) + x
        } else {
            compensation += (x - t) + sum
        }
        sum = t
    }

    /// Adds another partial sum (both its parts, compensated).
    mutating func add(_ other: CompensatedSum) {
        add(other.sum)
        add(other.compensation)
    }

    /// The compensated total.
    var value: Double { sum + compensation }
}
