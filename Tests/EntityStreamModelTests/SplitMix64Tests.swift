import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("SplitMix64", .bounded)
struct SplitMix64Tests {
    /// The generator reproduces the reference SplitMix64 outputs for seed 0 (Vigna's splitmix64.c).
    @Test func referenceOutputs() {
        var rng = SplitMix64(seed: 0)
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(rng.next() == 0x06C4_5D18_8009_454F)
    }

    /// Doubles lie in [0, 1), bounded integers in 0..<bound (0 for bounds ≤ 1), and uniform stays in range.
    @Test func helpersStayInRange() {
        var rng = SplitMix64(seed: 99)
        var seen = Set<Int>()
        for _ in 0..<10_000 {
            let d = rng.nextDouble()
            #expect(d >= 0 && d < 1)
            let n = rng.next(below: 7)
            #expect(n >= 0 && n < 7)
            seen.insert(n)
            let u = rng.uniform(10, 20)
            #expect(u >= 10 && u < 20)
        }
        #expect(seen.count == 7)
        #expect(rng.next(below: 1) == 0)
        #expect(rng.next(below: 0) == 0)
        #expect(rng.next(below: -5) == 0)
    }
}
