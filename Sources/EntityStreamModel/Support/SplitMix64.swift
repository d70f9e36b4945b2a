/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, fast, statistically sound
/// pseudo-random generator whose output depends only on its seed.
///
/// The simulator and the randomized tests use it instead of the system
/// generator so that a seed reproduces the same run on every platform and
/// Swift version: the helpers
/// below (``nextDouble()``, ``next(below:)``, ``uniform(_:_:)``) are written
/// out here rather than taken from the standard library, whose
/// `random(in:using:)` algorithms are not promised to stay the same.
/// A value type: copying it forks the sequence.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The internal state; the next output is a function of it alone.
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func nextDouble() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform integer in 0..<bound (Lemire's multiply-high; bias below 2⁻⁶⁴·bound).
    /// Returns 0 when `bound` ≤ 1.
    public mutating func next(below bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        return Int(UInt64(bound).multipliedFullWidth(by: next()).high)
    }

    /// A uniform double in [lower, upper).
    public mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * nextDouble()
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        nextDouble() < probability
    }
}
