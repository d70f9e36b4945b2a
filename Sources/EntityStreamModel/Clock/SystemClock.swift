#if canImport(Glibc)
import Glibc
#endif

/// The real wall clock (`CLOCK_REALTIME`) in epoch milliseconds; sleeps
/// with `Task.sleep`. Sendable, stateless.
public struct SystemClock: EntityClock {
    public init() {}

    public func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    public func sleep(until deadline: Int64) async throws {
        let remaining = deadline - now()
        if remaining > 0 { try await Task.sleep(for: .milliseconds(remaining)) }
        try Task.checkCancellation()
    }
}
