/// The time source everything time-dependent uses: receive times, purge by
/// age, reconnect waits, filter-reply timeouts.
///
/// Times are epoch milliseconds (UTC). Production code uses ``SystemClock``;
/// tests inject a ``ManualClock`` and move time by hand, so nothing waits for
/// real time. `sleep(until:)` throws `CancellationError` when its task is
/// cancelled.
public protocol EntityClock: Sendable {
    /// Now, in epoch milliseconds.
    func now() -> Int64
    /// Suspends until `deadline` (epoch milliseconds) has passed.
    func sleep(until deadline: Int64) async throws
}

extension EntityClock {
    /// Suspends for `milliseconds`.
    public func sleep(milliseconds: Int64) async throws {
        try await sleep(until: now() + milliseconds)
    }
}
