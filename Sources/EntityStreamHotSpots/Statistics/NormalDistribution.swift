import Foundation

/// The standard normal distribution's two-sided tail probability.
enum NormalDistribution {
    /// P(|Z| ≥ |z|) = erfc(|z|/√2), accurate to a few ulps across the whole
    /// range (the C library's `erfc` does not lose the tail to cancellation:
    /// 1e-300-sized probabilities come out right) and 0 beyond |z| ≈ 38.5,
    /// where the probability underflows. NaN for NaN.
    @inline(__always)
    static func twoSidedP(_ z: Double) -> Double {
        erfc(abs(z) * 0.707_106_781_186_547_524_400_844_362_104_849_039_284_835_937_688_474_036_588)
    }
}
