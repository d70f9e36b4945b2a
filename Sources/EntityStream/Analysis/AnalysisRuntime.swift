import EntityStreamCore
import EntityStreamModel

/// Runs on-demand analyses beside the stream: each job is a child task of
/// ``run()``, reports through the bus as `analysis` events (in order with
/// the stream), and can be cancelled by its id.
///
/// ``start(_:id:command:)`` publishes `accepted` before it returns and
/// refuses an id that names a running job; ``cancel(_:)`` asks a running
/// job to stop. Each job's lifecycle is an ``AnalysisJobLifecycle``: its
/// summary (with the stream's status and the store's as-of time), failure
/// or cancellation is its one final line. ``run()`` is the structured home
/// of every job: cancelling the task that runs it cancels them all;
/// after ``close()`` it returns once the running jobs have ended. Jobs
/// compute on the ``AnalysisExecutor``'s low-priority threads, so they do
/// not slow ingestion.
///
/// Bounded under load (``Limits``): at most `running` jobs run at once; up
/// to `queued` more wait in arrival order (each already `accepted`, its
/// command held, nothing computed); a start beyond that is refused with
/// ``StartError/busy(running:queued:)``, so memory stays bounded whatever
/// arrives on stdin. A queued job can be cancelled; one still waiting when
/// the runtime is cancelled ends `cancelled` like a running one.
public actor AnalysisRuntime {
    /// How many jobs run at once and how many may wait.
    public struct Limits: Sendable, Hashable {
        /// Jobs computing at once (each may hold a snapshot's worth of results).
        public var running: Int
        /// Jobs accepted and waiting for a running slot.
        public var queued: Int
        /// 4 running (the analysis executor's threads on a 4-core machine), 64 waiting.
        public static let standard = Limits(running: 4, queued: 64)

        public init(running: Int, queued: Int) {
            self.running = max(1, running)
            self.queued = max(0, queued)
        }
    }

    private struct Submission: Sendable {
        let id: JSONValue
        let command: String
        let job: any AnalysisJob
        let cancelSignal: AsyncStream<Void>
    }

    private struct Running {
        var lifecycle: AnalysisJobLifecycle
        let command: String
        let cancel: AsyncStream<Void>.Continuation
        /// The stream and store snapshot the job read, for its summary.
        var stream: AnalysisStreamFacts?
    }

    /// Why a job could not be started.
    public enum StartError: Error, Sendable, Hashable, CustomStringConvertible {
        case jobRunning(JSONValue)
        case closed
        /// `running` jobs run and `queued` wait: the limits are reached.
        case busy(running: Int, queued: Int)
        public var description: String {
            switch self {
            case .jobRunning(let id): return "a job with id \(id) is still running; give each command its own id"
            case .closed: return "the session is ending; no new analyses start"
            case .busy(let running, let queued):
                return "too many analyses: \(running) running and \(queued) waiting (the limits); send it again when one has ended"
            }
        }
    }

    /// What a cancel request found.
    public enum CancelOutcome: String, Sendable, Hashable {
        /// The job was asked to stop; its `cancelled` (or final) line follows.
        case cancelling
        /// It was already being cancelled.
        case alreadyCancelling
        /// No running job has that id (it never ran, or has finished).
        case notRunning
    }

    public nonisolated let environment: AnalysisEnvironment
    public nonisolated let limits: Limits
    private let publish: @Sendable ([StreamEvent]) async -> Void
    private let submissions: AsyncStream<Submission>
    private let submit: AsyncStream<Submission>.Continuation
    private var jobs: [JSONValue: Running] = [:]
    private var closed = false
    /// Jobs executing now (the others in ``jobs`` wait in ``submissions``).
    private var executing = 0
    /// A token per freed running slot.
    private let slots: AsyncStream<Void>
    private let freeSlot: AsyncStream<Void>.Continuation

    /// `publish` puts events on the bus in order (the pipeline's publish).
    public init(environment: AnalysisEnvironment, limits: Limits = .standard, publish: @escaping @Sendable ([StreamEvent]) async -> Void) {
        self.environment = environment
        self.limits = limits
        self.publish = publish
        (submissions, submit) = AsyncStream.makeStream(of: Submission.self)
        (slots, freeSlot) = AsyncStream.makeStream(of: Void.self)
        for _ in 0..<limits.running { freeSlot.yield(()) }
    }

    /// Runs every started job as a child task until ``close()`` (then until
    /// the running jobs end) or until the calling task is cancelled (then
    /// every job is cancelled and reports `cancelled`).
    public func run() async {
        await withDiscardingTaskGroup { group in
            var freeSlots = slots.makeAsyncIterator()
            for await submission in submissions {
                // Wait for a running slot; queued jobs wait here, in order. A slot freed by a job the
                // cancellation ended can still be taken after it: a queued job then ends cancelled below,
                // never starts.
                guard await freeSlots.next() != nil, !Task.isCancelled else { break }
                executing += 1
                group.addTask {
                    await self.execute(submission)
                    await self.slotFreed()
                }
            }
        }
        // Cancelled while jobs waited: each still gets its one final line.
        for id in Array(jobs.keys) { await finish(id, .cancelled) }
    }

    private func slotFreed() {
        executing -= 1
        freeSlot.yield(())
    }

    /// No new jobs; ``run()`` returns when the running ones have ended.
    public func close() {
        closed = true
        submit.finish()
    }

    /// Ids of the jobs running now.
    public var runningJobs: [JSONValue] { Array(jobs.keys) }

    /// Starts `job`: publishes `accepted` (with the stream's status) and queues it.
    public func start(_ job: any AnalysisJob, id: JSONValue, command: String) async throws(StartError) {
        guard !closed else { throw .closed }
        guard jobs[id] == nil else { throw .jobRunning(id) }
        guard jobs.count < limits.running + limits.queued else {
            throw .busy(running: min(jobs.count, limits.running), queued: jobs.count - min(jobs.count, limits.running))
        }
        let (signal, cancel) = AsyncStream.makeStream(of: Void.self)
        var lifecycle = AnalysisJobLifecycle()
        _ = lifecycle.start()
        jobs[id] = Running(lifecycle: lifecycle, command: command, cancel: cancel, stream: nil)
        let status = await environment.streamStatus?()
        await publish([event(AnalysisEvent(job: id, command: command, content: .accepted(stream: status)))])
        submit.yield(Submission(id: id, command: command, job: job, cancelSignal: signal))
    }

    /// Asks the job `id` to stop.
    public func cancel(_ id: JSONValue) -> CancelOutcome {
        guard var running = jobs[id] else { return .notRunning }
        let action = running.lifecycle.cancel()
        jobs[id] = running
        switch action {
        case .cancelWork:
            running.cancel.finish()
            return .cancelling
        case .none:
            return .alreadyCancelling
        default:
            return .notRunning
        }
    }

    // MARK: Reports from jobs

    func report(_ events: [AnalysisEvent], for id: JSONValue) async {
        guard var running = jobs[id], !events.isEmpty else { return }
        guard case .publish = running.lifecycle.report() else { return }
        jobs[id] = running
        await publish(events.map(event))
    }

    func publishStatus(_ change: ConnectionStatusChange, for id: JSONValue) async {
        guard jobs[id] != nil else { return }
        await publish([StreamEvent(time: environment.clock.now(), payload: .status(change))])
    }

    func noteSnapshot(_ snapshot: StoreSnapshot, for id: JSONValue) {
        jobs[id]?.stream = snapshot.streamFacts
    }

    // MARK: Running one job

    private func execute(_ submission: Submission) async {
        let context = AnalysisContext(job: submission.id, command: submission.command, environment: environment, runtime: self)
        let job = submission.job
        let outcome: AnalysisJobLifecycle.WorkOutcome = await withTaskGroup(of: AnalysisJobLifecycle.WorkOutcome?.self) { group in
            group.addTask(executorPreference: AnalysisExecutor.shared) {
                do {
                    return .completed(summary: try await job.run(in: context))
                } catch is CancellationError {
                    return .cancelled
                } catch {
                    return Task.isCancelled ? .cancelled : .failed(AnalysisJobFailure(error))
                }
            }
            group.addTask {
                // Returns when cancel() finishes the signal, or when the job ended first and this task is cancelled.
                for await _ in submission.cancelSignal {}
                return nil
            }
            var outcome: AnalysisJobLifecycle.WorkOutcome = .cancelled
            while let next = await group.next() {
                if let next { outcome = next }
                group.cancelAll()
            }
            return outcome
        }
        await finish(submission.id, outcome)
    }

    private func finish(_ id: JSONValue, _ outcome: AnalysisJobLifecycle.WorkOutcome) async {
        guard var running = jobs.removeValue(forKey: id) else { return }
        guard case .publishFinal(var content) = running.lifecycle.finish(outcome) else { return }
        if case .summary(var summary) = content {
            if let stream = running.stream {
                summary.stream = stream
            } else if let status = await environment.streamStatus?() {
                summary.stream = AnalysisStreamFacts(status: status)
            }
            content = .summary(summary)
        }
        let line = AnalysisEvent(job: id, command: running.command, content: content)
        await publish([event(line)])
    }

    private nonisolated func event(_ analysis: AnalysisEvent) -> StreamEvent {
        StreamEvent(time: environment.clock.now(), payload: .analysis(analysis))
    }
}
