/// When each message of a replay is due, for `entitystream replay` and the
/// simulator alike: the arithmetic is done in floating point and saturates
/// within ``Instant/range`` (a message due after year 9999 waits "forever"),
/// so no offset, loop count, interval or speed — however extreme — can
/// trap. Pure functions; times are epoch milliseconds.
public enum PlaybackSchedule {
    /// A recorded message's due time: `offset` ms into pass `pass` of a
    /// looped recording whose last offset is `lastOffset` (a pass lasts
    /// `lastOffset + 1` ms), played `speed` times faster, from `start`.
    public static func due(start: Int64, offset: Int64, pass: Int, lastOffset: Int64, speed: Double) -> Int64 {
        due(start: start, offset: offset, pass: pass, span: Double(lastOffset) + 1, speed: speed)
    }

    /// A recorded message's due time when a pass lasts `span` ms.
    public static func due(start: Int64, offset: Int64, pass: Int, span: Double, speed: Double) -> Int64 {
        let elapsed = (Double(offset) + Double(pass) * span) / speed
        return adding(elapsed, to: start)
    }

    /// The due time of message `sequence` (0, 1, …) sent every `interval` ms from `start`.
    public static func due(start: Int64, sequence: Int64, interval: Int64) -> Int64 {
        adding(Double(sequence) * Double(interval), to: start)
    }

    /// `start + milliseconds`, rounded, within ``Instant/range`` (NaN counts as "never").
    public static func adding(_ milliseconds: Double, to start: Int64) -> Int64 {
        let target = Double(start) + milliseconds.rounded()
        guard !target.isNaN else { return Instant.range.upperBound }
        if target >= Double(Instant.range.upperBound) { return Instant.range.upperBound }
        if target <= Double(Instant.range.lowerBound) { return Instant.range.lowerBound }
        return Int64(target)
    }
}
