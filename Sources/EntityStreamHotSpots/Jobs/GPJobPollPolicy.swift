/// How a client polls a remote geoprocessing job (milliseconds).
///
/// The first poll comes ``initialInterval`` after submission; while the
/// status stays the same each interval grows by half (`× 3/2`) up to
/// ``maximumInterval``; a status change resets it to ``initialInterval``.
/// After a failed request the next poll waits as if the status had not
/// changed; more than ``maximumConsecutiveErrors`` failures in a row give
/// up. ``timeout`` (from submission) cancels the job and gives up;
/// ``cancelGrace`` bounds how long a cancel may take to be confirmed.
public struct GPJobPollPolicy: Sendable, Hashable {
    public var initialInterval: Int64
    public var maximumInterval: Int64
    public var timeout: Int64?
    public var cancelGrace: Int64
    public var maximumConsecutiveErrors: Int

    /// Values are clamped: intervals to 1 ms…1 h, the maximum to at least the initial.
    public init(initialInterval: Int64 = 250, maximumInterval: Int64 = 5_000, timeout: Int64? = nil,
                cancelGrace: Int64 = 30_000, maximumConsecutiveErrors: Int = 5) {
        let hour: Int64 = 3_600_000
        self.initialInterval = min(max(initialInterval, 1), hour)
        self.maximumInterval = min(max(maximumInterval, self.initialInterval), hour)
        self.timeout = timeout.map { max($0, 0) }
        self.cancelGrace = max(cancelGrace, 0)
        self.maximumConsecutiveErrors = max(maximumConsecutiveErrors, 0)
    }

    /// The interval after `interval` when nothing changed.
    func next(after interval: Int64) -> Int64 {
        min(maximumInterval, interval.saturatingAdd(interval / 2))
    }
}
