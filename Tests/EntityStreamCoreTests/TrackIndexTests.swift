@testable import EntityStreamCore
import EntityStreamTestSupport
import Testing
@testable import EntityStreamModel

@Suite("The store's index of entities by track id", .bounded)
struct TrackIndexTests {
    /// Random inserts, updates and removals of many track ids of every kind
    /// agree with a `[AttributeValue: Int]` model at every step: lookups of
    /// held and absent ids, and the count. Enough ids make probe runs wrap
    /// and removals shift entries back.
    @Test(arguments: [UInt64(11), 12, 13])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pool: [AttributeValue] = (0..<1500).map { index in
            switch index % 6 {
            case 0: return .string("TRUCK \(index)")
            case 1: return .string("367\(index)950-vessel-with-a-long-identifier")
            case 2: return .int(Int64(index) * 1_000_003 - 500_000)
            case 3: return .date(milliseconds: Int64(index))
            case 4: return .double(Double(index) / 4)
            default: return .string("é\(index)")
            }
        }
        var index = TrackIndex()
        var model: [AttributeValue: Int] = [:]
        for step in 0..<40_000 {
            let key = pool[Int(random.next() % UInt64(pool.count))]
            if random.next() % 3 == 0 {
                index[key] = nil
                model[key] = nil
            } else {
                index[key] = step
                model[key] = step
            }
            if step % 1000 == 0 {
                #expect(index.count == model.count)
                for key in pool { #expect(index[key] == model[key], "\(key)") }
            }
        }
        for key in pool { #expect(index[key] == model[key], "\(key)") }
        for key in model.keys { index[key] = nil }
        #expect(index.count == 0)
        #expect(pool.allSatisfy { index[$0] == nil })
    }

    /// Keys equal as `AttributeValue`s find each other: the same scalars,
    /// 0.0 and -0.0; a canonically equivalent spelling ("é" as e + U+0301)
    /// is another track, as SQL engines compare; keys of different kinds
    /// with the same number do not meet.
    @Test func equalKeysMeetAndOthersDoNot() {
        var index = TrackIndex()
        index[.string("caf\u{E9}")] = 1
        #expect(index[.string("caf\u{E9}")] == 1)
        #expect(index[.string("cafe\u{301}")] == nil)
        index[.double(0)] = 2
        #expect(index[.double(-0.0)] == 2)
        index[.int(7)] = 3
        #expect(index[.date(milliseconds: 7)] == nil)
        #expect(index[.double(7)] == nil)
        #expect(index[.string("7")] == nil)
        #expect(index.count == 3)
    }
}
