import EntityStream
import Foundation
import Testing

/// The one trait every test suite carries: how many of its tests run at
/// once, and how long each may take once it runs.
///
/// Swift Testing starts every test of the run at the same moment, and its
/// own `.timeLimit` counts from there, so on a busy two-core machine a
/// parser test that needs milliseconds could exceed two minutes waiting for
/// the hundreds of tests queued in front of it. This trait instead makes
/// each test case wait for a slot in its ``Lane`` first, and only then
/// starts the clock of its time limit: the limit measures the test, not the
/// queue. A lane's width bounds how many of its tests share the machine, so
/// tests that spawn processes or open sockets do not pile up threads and
/// children on a loaded machine.
///
/// Apply it once per suite, `@Suite("…", .bounded)` or
/// `@Suite("…", .bounded(.io))`; it applies to every test and argument case
/// in the suite and its nested suites. Applied again inside a bounded test
/// it does nothing, so nested suites never take two slots.
///
/// `ENTITYSTREAM_TEST_DURATIONS=1 swift test` prints each test's running and
/// waiting times on stderr.
///
/// When a test exceeds its limit, the trait records an issue naming the limit
/// and how long the test had waited for its slot, then cancels the test.
///
/// Compute tests run on threads of their own (``Lane/executor``), not on
/// Swift's cooperative pool: that pool has one thread per core, and two
/// compute tests each running a synchronous loop for seconds held both, so
/// that every test awaiting an event (an HTTP answer, a job's status) waited
/// behind them and its own timeouts measured that queue. With the compute
/// lane on its threads, the kernel shares the cores between them and the
/// pool, and the pool stays free for the tests that wait.
public struct BoundedTest: TestTrait, SuiteTrait, TestScoping {
    /// A queue of tests that share the machine with a bounded width.
    public enum Lane: Sendable {
        /// Tests that compute in the test process only (parsers, engines, state machines, actors).
        case compute
        /// Tests that spawn child processes or open sockets.
        case io

        /// How many tests of the lane run at once. Compute tests run on
        /// threads of their own, one per slot, so their width is the core
        /// count (2 to 4): more would not compute faster, and would take the
        /// cores from the processes and servers the I/O tests drive in real
        /// time. I/O tests mostly wait for events; 3 overlap those waits
        /// without piling up children on a loaded machine.
        public var width: Int {
            switch self {
            case .compute: BoundedTest.computeWidth
            case .io: BoundedTest.ioWidth
            }
        }

        var gate: TestGate {
            switch self {
            case .compute: TestGate.compute
            case .io: TestGate.io
            }
        }

        /// Where the lane's test bodies run: the compute lane on threads of
        /// its own, one per slot (an ``AnalysisExecutor``, dedicated threads at
        /// the process's priority); the I/O lane on the cooperative pool, whose
        /// tests mostly await events.
        public var executor: (any TaskExecutor)? {
            switch self {
            case .compute: BoundedTest.computeExecutor
            case .io: nil
            }
        }
    }

    /// The I/O lane's width: 3, or `ENTITYSTREAM_TEST_IO_WIDTH` (1 to 16), to
    /// measure the suite at another width with the same build.
    static let ioWidth = ProcessInfo.processInfo.environment["ENTITYSTREAM_TEST_IO_WIDTH"].flatMap(Int.init)
        .map { min(16, max(1, $0)) } ?? 3

    /// The compute lane's width: the core count, at least 2 and at most 4.
    static let computeWidth = min(4, max(2, ProcessInfo.processInfo.activeProcessorCount))
    /// The compute lane's threads (see ``Lane/executor``).
    static let computeExecutor = AnalysisExecutor(threads: computeWidth)

    /// The lane the tests wait in.
    public let lane: Lane
    /// How long one test case may run once it has its slot.
    public let limit: Duration

    /// The limit of a test that has no reason for another: two minutes, far
    /// above what any test of the suite needs on a loaded machine once it runs.
    public static let standardLimit: Duration = .seconds(120)

    public var isRecursive: Bool { true }

    /// Scopes each test case, never the suite as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        if Self.isInsideBoundedTest {
            try await function()
            return
        }
        let clock = ContinuousClock()
        let queued = clock.now
        try await lane.gate.withSlot {
            let waited = queued.duration(to: clock.now)
            let started = clock.now
            defer {
                if Self.reportsDurations {
                    let line = "bounded test: \(test.id) ran \(started.duration(to: clock.now)) after waiting \(waited)\n"
                    FileHandle.standardError.write(Data(line.utf8))
                }
            }
            try await Self.$isInsideBoundedTest.withValue(true) {
                try await withTaskExecutorPreference(lane.executor) {
                    try await Self.run(function, within: limit, clock: clock, waited: waited, test: "\(test.id)")
                }
            }
        }
    }

    @TaskLocal static var isInsideBoundedTest = false

    /// Whether each test's running and waiting times go to stderr
    /// (`ENTITYSTREAM_TEST_DURATIONS=1`): how to find the slow tests.
    static let reportsDurations = ProcessInfo.processInfo.environment["ENTITYSTREAM_TEST_DURATIONS"] == "1"

    /// How long a cancelled test may take to end before the test process is
    /// ended: a test stuck where cancellation cannot reach (a continuation
    /// nothing resumes) would otherwise hang the whole run.
    static let cancellationGrace: Duration = .seconds(30)

    /// Runs `body`, recording an issue and cancelling it when `limit` passes
    /// first; ends the process when a cancelled test has not ended within
    /// `grace` (then `whenStuck` runs; by default it says so on stderr and
    /// exits with status 1).
    static func run(_ body: @Sendable () async throws -> Void, within limit: Duration, clock: ContinuousClock,
                    waited: Duration, test: String = "", grace: Duration = cancellationGrace,
                    whenStuck: (@Sendable () -> Void)? = nil) async throws {
        let ended = DispatchSemaphore(value: 0)
        defer { ended.signal() }
        try await withoutActuallyEscaping(body) { body in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await body()
                    return false
                }
                // On the pool, not the lane's threads: a body that blocks every one of them is still timed.
                group.addTask(executorPreference: globalConcurrentExecutor) {
                    try await clock.sleep(for: limit)
                    return true
                }
                let timedOut = try await group.next() ?? false
                group.cancelAll()
                if timedOut {
                    Issue.record("""
                        Time limit exceeded: the test ran for \(limit) after waiting \(waited) for its slot; \
                        it was cancelled.
                        """)
                    Self.watch(ended, grace: grace) {
                        if let whenStuck { whenStuck() } else { Self.endProcess(test: test, grace: grace) }
                    }
                }
            }
        }
    }

    /// On a thread of its own (the cooperative pool may be what is stuck):
    /// runs `stuck` when `ended` is not signalled within `grace`.
    private static func watch(_ ended: DispatchSemaphore, grace: Duration, stuck: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = grace.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        Thread.detachNewThread {
            if ended.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut { stuck() }
        }
    }

    private static func endProcess(test: String, grace: Duration) {
        let line = "bounded test: \(test) did not end within \(grace) of its cancellation after its time limit; ending the test run\n"
        FileHandle.standardError.write(Data(line.utf8))
        exit(1)
    }
}

extension Trait where Self == BoundedTest {
    /// The compute lane with the standard limit.
    public static var bounded: BoundedTest { BoundedTest(lane: .compute, limit: BoundedTest.standardLimit) }

    /// The given lane, with the standard limit unless another is given.
    public static func bounded(_ lane: BoundedTest.Lane, limit: Duration = BoundedTest.standardLimit) -> BoundedTest {
        BoundedTest(lane: lane, limit: limit)
    }
}
