import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Ends (SIGKILL) a ``ChildProcess`` that outlives its limit, from a thread
/// of its own, and says so on stderr.
///
/// Tests read their children's pipes with blocking reads, which a test's
/// time limit cannot interrupt: a child that hangs would hang the whole
/// run. Killed, it closes its pipes, the reads end, and the test fails on
/// what it expected instead. A pid is only ever signalled while its child
/// has not been reaped (``settle(_:_:)`` lifts the watch under the same
/// lock), so a reused pid is never hit.
final class ChildWatchdog: @unchecked Sendable {
    static let shared = ChildWatchdog()

    private struct Watch {
        let name: String
        let limit: Duration
        let deadline: ContinuousClock.Instant
    }

    private let condition = NSCondition()
    private var watches: [pid_t: Watch] = [:]
    private var running = false

    /// Watches `pid`, named `name` in the message, for `limit`.
    func watch(_ pid: pid_t, name: String, limit: Duration) {
        condition.lock()
        defer { condition.unlock() }
        watches[pid] = Watch(name: name, limit: limit, deadline: .now + limit)
        if !running {
            running = true
            let thread = Thread { [self] in loop() }
            thread.name = "child watchdog"
            thread.start()
        }
        condition.signal()
    }

    /// Runs `reap` (a `waitpid` that does not block) under the watchdog's
    /// lock; when it answers a status, the child is gone and its watch lifted.
    func settle(_ pid: pid_t, _ reap: () -> Int32?) -> Int32? {
        condition.lock()
        defer { condition.unlock() }
        let status = reap()
        if status != nil { watches[pid] = nil }
        return status
    }

    private func loop() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            for (pid, watch) in watches where watch.deadline <= now {
                kill(pid, SIGKILL)
                watches[pid] = nil
                FileHandle.standardError.write(Data("ChildWatchdog: killed \(watch.name) (pid \(pid)): it was still running after \(watch.limit)\n".utf8))
            }
            if let next = watches.values.map(\.deadline).min() {
                let (seconds, attoseconds) = (next - now).components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18))
            } else {
                condition.wait()
            }
        }
    }
}
