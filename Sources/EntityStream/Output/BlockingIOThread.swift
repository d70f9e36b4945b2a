import Foundation
import EntityStreamLocking

/// A dedicated thread for blocking I/O — writes to stdout or a file that
/// may wait for a slow reader or a slow disk — so that no thread of Swift's
/// cooperative pool (two on a two-core machine) ever blocks in `write` or
/// `poll`, as stdin, DNS and libwebsockets each have their own thread.
///
/// Jobs run one at a time, in the order they were started. ``run(_:)``
/// waits for its job's result; ``start(_:)`` returns a ``PendingJob`` to
/// await later, so the caller can prepare the next buffer while this one
/// is written. ``shutdown()`` lets queued jobs finish, then ends the thread;
/// releasing the last reference does the same. Thread-safe.
public final class BlockingIOThread: Sendable {
    private final class Mailbox: @unchecked Sendable {
        let condition = NSCondition()
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopping = false
    }

    private let mailbox = Mailbox()

    public init(name: String) {
        let mailbox = self.mailbox
        let thread = Thread {
            ThreadName.setCurrent(name)
            while true {
                mailbox.condition.lock()
                while mailbox.head == mailbox.jobs.count && !mailbox.stopping { mailbox.condition.wait() }
                if mailbox.head == mailbox.jobs.count {
                    mailbox.condition.unlock()
                    return
                }
                let job = mailbox.jobs[mailbox.head]
                mailbox.head += 1
                if mailbox.head == mailbox.jobs.count {
                    mailbox.jobs.removeAll(keepingCapacity: true)
                    mailbox.head = 0
                }
                mailbox.condition.unlock()
                job()
            }
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        shutdown()
    }

    /// Starts `body` on the thread and returns at once; await the job's
    /// ``PendingJob/value`` for its result. After ``shutdown()`` the job still runs
    /// (on the calling thread) so no result is ever lost.
    public func start<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> PendingJob<Result> {
        let pending = PendingJob<Result>()
        mailbox.condition.lock()
        if mailbox.stopping {
            mailbox.condition.unlock()
            pending.complete(body())
            return pending
        }
        mailbox.jobs.append { pending.complete(body()) }
        mailbox.condition.signal()
        mailbox.condition.unlock()
        return pending
    }

    /// Runs `body` on the thread and returns its result.
    public func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await start(body).value
    }

    /// Ends the thread once the jobs already started have run. Idempotent.
    public func shutdown() {
        mailbox.condition.lock()
        mailbox.stopping = true
        mailbox.condition.signal()
        mailbox.condition.unlock()
    }
}

/// The result of a job started on a ``BlockingIOThread``, to await once.
public final class PendingJob<Result: Sendable>: Sendable {
    private struct State {
        var result: Result?
        var waiter: CheckedContinuation<Result, Never>?
    }

    private let state = LockedState(State())

    init() {}

    fileprivate func complete(_ result: Result) {
        let waiter = state.withLock { state -> CheckedContinuation<Result, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    /// Stops waiting for the job: ``value`` returns `stand-in` from now on
    /// (unless the job has already finished), though the job itself runs on
    /// (a write blocked on a reader that never reads).
    public func abandon(returning standIn: Result) {
        complete(standIn)
    }

    /// The job's result, once it has run.
    public var value: Result {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
