import Foundation
import EntityStreamCore
@testable import EntityStreamHotSpots
import EntityStreamModel

/// Independent oracles, written here from the formulas (not from the engine):
/// brute-force O(n²) Gi*, Benjamini–Hochberg, Global Moran's I, k-th
/// nearest-neighbour distances.
enum Oracles {
    /// Gi* exactly as Esri's `Gi.py` writes it: x̄ = Σx/n, S = √(Σx²/n − x̄²),
    /// binary weights for d ≤ band (self included). nil when the feature has
    /// no neighbour but itself or the denominator vanishes.
    static func giStar(x: [Double], y: [Double], values: [Double], band: Double) -> [(z: Double?, neighbors: Int)] {
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        let s = (values.map { $0 * $0 }.reduce(0, +) / n - mean * mean).squareRoot()
        return values.indices.map { i in
            var sw = 0.0, swx = 0.0, sw2 = 0.0
            for j in values.indices {
                let d = ((x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j])).squareRoot()
                if d <= band {
                    sw += 1
                    sw2 += 1
                    swx += values[j]
                }
            }
            let neighbors = Int(sw) - 1
            guard sw > 1 else { return (nil, neighbors) }
            let denominator = s * ((n * sw2 - sw * sw) / (n - 1)).squareRoot()
            guard denominator > 0 else { return (nil, neighbors) }
            return ((swx - mean * sw) / denominator, neighbors)
        }
    }

    /// Two-sided normal p from the complementary error function.
    static func twoSidedP(_ z: Double) -> Double { erfc(abs(z) / 2.0.squareRoot()) }

    /// Benjamini–Hochberg step-up at `alpha` (statsmodels `fdr_bh`): which p reject.
    static func benjaminiHochberg(_ p: [Double], alpha: Double) -> [Bool] {
        let m = Double(p.count)
        let order = p.indices.sorted { p[$0] < p[$1] }
        var largest = -1
        for (rank, index) in order.enumerated() where p[index] <= Double(rank + 1) / m * alpha { largest = rank }
        var reject = [Bool](repeating: false, count: p.count)
        if largest >= 0 { for rank in 0...largest { reject[order[rank]] = true } }
        return reject
    }

    /// Gi_Bin with FDR from BH at 0.10, 0.05, 0.01 (nil p: bin 0).
    static func fdrBins(z: [Double?], p: [Double?]) -> [Int8] {
        let tested = p.indices.filter { p[$0] != nil }
        let values = tested.map { p[$0]! }
        var bins = [Int8](repeating: 0, count: p.count)
        for (level, alpha) in [(Int8(1), 0.10), (2, 0.05), (3, 0.01)] {
            let reject = benjaminiHochberg(values, alpha: alpha)
            for (k, index) in tested.enumerated() where reject[k] {
                bins[index] = z[index]! > 0 ? level : -level
            }
        }
        return bins
    }

    /// Global Moran's I z at each cutoff, row-standardised, features without
    /// neighbours sitting out, randomisation variance (Esri `GlobalI_Step`).
    static func moransIZ(x: [Double], y: [Double], values: [Double], cutoffs: [Double]) -> [Double] {
        cutoffs.map { cutoff in
            let all = values.indices
            var neighbors = [[Int]](repeating: [], count: values.count)
            for i in all {
                for j in all where j != i {
                    let d = ((x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j])).squareRoot()
                    if d <= cutoff { neighbors[i].append(j) }
                }
            }
            let included = all.filter { !neighbors[$0].isEmpty }
            let n = Double(included.count)
            let mean = included.map { values[$0] }.reduce(0, +) / n
            var numerator = 0.0, s1 = 0.0, s2 = 0.0, sum2 = 0.0, sum4 = 0.0
            var columnSums = [Double](repeating: 0, count: values.count)
            for i in included {
                for j in neighbors[i] { columnSums[j] += 1 / Double(neighbors[i].count) }
            }
            for i in included {
                let zi = values[i] - mean
                sum2 += zi * zi
                sum4 += zi * zi * zi * zi
                let wi = 1 / Double(neighbors[i].count)
                for j in neighbors[i] {
                    let wj = 1 / Double(neighbors[j].count)   // w_ji (symmetric band)
                    numerator += wi * zi * (values[j] - mean)
                    s1 += (wi + wj) * (wi + wj)
                }
                s2 += (1 + columnSums[i]) * (1 + columnSums[i])
            }
            s1 *= 0.5
            let s0 = n
            let index = numerator / sum2
            let expected = -1 / (n - 1)
            let b2 = (sum4 / n) / ((sum2 / n) * (sum2 / n))
            let left = n * ((n * n - 3 * n + 3) * s1 - n * s2 + 3 * s0 * s0)
            let right = b2 * ((n * n - n) * s1 - 2 * n * s2 + 6 * s0 * s0)
            let variance = (left - right) / ((n - 1) * (n - 2) * (n - 3) * s0 * s0) - expected * expected
            return (index - expected) / variance.squareRoot()
        }
    }

    /// Mean over features of the distance to the k-th nearest other feature.
    static func meanKthNeighborDistance(x: [Double], y: [Double], k: Int) -> Double {
        var total = 0.0
        for i in x.indices {
            var d: [Double] = []
            for j in x.indices where j != i {
                d.append(((x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j])).squareRoot())
            }
            d.sort()
            total += d[k - 1]
        }
        return total / Double(x.count)
    }

    /// Uniform random points in [0, side)², with values, some duplicated.
    static func randomPoints(count: Int, side: Double, seed: UInt64, duplicates: Int = 0)
        -> (x: [Double], y: [Double], values: [Double]) {
        var random = SplitMix64(seed: seed)
        var x: [Double] = [], y: [Double] = [], v: [Double] = []
        for _ in 0..<count {
            x.append(random.uniform(0, side))
            y.append(random.uniform(0, side))
            // A hot corner, a cold corner, noise.
            let base = x.last! < side / 4 && y.last! < side / 4 ? 10.0 : (x.last! > side * 0.75 && y.last! > side * 0.75 ? -10 : 0)
            v.append(base + random.uniform(-5, 5))
        }
        for _ in 0..<duplicates {
            let source = random.next(below: count)
            x.append(x[source])
            y.append(y[source])
            v.append(random.uniform(-5, 5))
        }
        return (x, y, v)
    }

    static func weighted(_ x: [Double], _ y: [Double], _ values: [Double],
                         coordinates: HotSpotCoordinates = .projected) -> HotSpotInput {
        var input = HotSpotInput(kind: .weighted, coordinates: coordinates)
        for i in x.indices { input.append(x: x[i], y: y[i], value: values[i]) }
        return input
    }
}
