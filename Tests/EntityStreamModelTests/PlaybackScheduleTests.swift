import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("Playback schedule: due times never overflow", .bounded)
struct PlaybackScheduleTests {
    /// Ordinary schedules are exact: offset and loop passes scaled by the speed.
    @Test func ordinaryTimesAreExact() {
        #expect(PlaybackSchedule.due(start: 1_000, offset: 500, pass: 0, lastOffset: 999, speed: 1) == 1_500)
        #expect(PlaybackSchedule.due(start: 1_000, offset: 500, pass: 2, lastOffset: 999, speed: 2) == 1_000 + (500 + 2 * 1_000) / 2)
        #expect(PlaybackSchedule.due(start: 7, sequence: 3, interval: 10) == 37)
        #expect(PlaybackSchedule.adding(-5, to: 10) == 5)
    }

    /// The extremes that used to trap (a last offset of Int64.max, a speed of
    /// 1e-300 or 1e308, loops over offsets near 5e18, an interval of Int64.max)
    /// saturate within the instants there are: due "never" or "now".
    @Test func extremesSaturate() {
        let end = Instant.range.upperBound
        let now: Int64 = 1_795_254_572_989
        #expect(PlaybackSchedule.due(start: now, offset: .max, pass: 0, lastOffset: .max, speed: 1) == end)
        #expect(PlaybackSchedule.due(start: now, offset: 1_000, pass: 0, lastOffset: 1_000, speed: 1e-300) == end)
        #expect(PlaybackSchedule.due(start: now, offset: 5_000_000_000_000_000_000, pass: .max, lastOffset: 5_000_000_000_000_000_000,
                                     speed: 1e308) == now)
        #expect(PlaybackSchedule.due(start: now, offset: 5_000_000_000_000_000_000, pass: 3, lastOffset: 5_000_000_000_000_000_000,
                                     speed: 1) == end)
        #expect(PlaybackSchedule.due(start: now, sequence: .max, interval: .max) == end)
        #expect(PlaybackSchedule.due(start: .max, sequence: 1, interval: 1) == end)
        #expect(PlaybackSchedule.due(start: .min, offset: .min, pass: 0, span: 1, speed: 1) == Instant.range.lowerBound)
        #expect(PlaybackSchedule.adding(.nan, to: now) == end)
        #expect(PlaybackSchedule.adding(-.infinity, to: now) == Instant.range.lowerBound)
    }

    /// The shared bounds accept their ends and refuse just beyond them, naming the bound.
    @Test func boundsAreInclusiveAndNamed() {
        #expect(TimeBounds.problem(milliseconds: 0) == nil)
        #expect(TimeBounds.problem(milliseconds: TimeBounds.maximumMilliseconds) == nil)
        #expect(TimeBounds.problem(milliseconds: TimeBounds.maximumMilliseconds + 1)?.contains("1000000000000") == true)
        #expect(TimeBounds.problem(milliseconds: -1) != nil)
        #expect(TimeBounds.problem(speed: 0.000_001) == nil && TimeBounds.problem(speed: 1_000_000) == nil)
        for speed in [0, 1e-300, 1e308, .nan, .infinity, -1] { #expect(TimeBounds.problem(speed: speed) != nil, "\(speed)") }
        #expect(TimeBounds.problem(seconds: 1e9) == nil)
        #expect(TimeBounds.problem(seconds: 1e300) != nil && TimeBounds.problem(seconds: -.infinity) != nil)
    }
}
