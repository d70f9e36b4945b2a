/// The bounds every time value and time flag is checked against on input,
/// in `entitystream` and `stream-simulator` alike, so that no later
/// millisecond arithmetic can overflow: instants within ``Instant/range``,
/// durations and offsets within ``milliseconds``, speed factors within
/// ``speeds``. Values outside are refused with a message naming the bound
/// (never clamped silently). Stateless.
public enum TimeBounds {
    /// The longest duration, offset or interval: 10¹² ms, about 31.7 years.
    public static let maximumMilliseconds: Int64 = 1_000_000_000_000
    /// Durations and offsets, in milliseconds.
    public static let milliseconds: ClosedRange<Int64> = 0...maximumMilliseconds
    /// The longest duration in seconds (10⁹ s, about 31.7 years).
    public static let maximumSeconds: Double = 1_000_000_000
    /// Replay speed factors (`--speed`): a millionth to a million times the recorded pace.
    public static let speeds: ClosedRange<Double> = 0.000_001...1_000_000

    /// Why `seconds` is not a usable duration, or nil when it is (finite, within 0…``maximumSeconds``).
    public static func problem(seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0, seconds <= maximumSeconds else {
            return "a duration must be between 0 and \(Int64(maximumSeconds)) seconds (about 31 years)"
        }
        return nil
    }

    /// Why `milliseconds` is not a usable duration or offset, or nil when it is.
    public static func problem(milliseconds value: Int64) -> String? {
        milliseconds.contains(value) ? nil : "must be a whole number of milliseconds from 0 to \(maximumMilliseconds) (about 31 years)"
    }

    /// Why `speed` is not a usable speed factor, or nil when it is.
    public static func problem(speed: Double) -> String? {
        guard speed.isFinite, speeds.contains(speed) else {
            return "a speed factor must be between \(speeds.lowerBound) and \(Int64(speeds.upperBound))"
        }
        return nil
    }
}
