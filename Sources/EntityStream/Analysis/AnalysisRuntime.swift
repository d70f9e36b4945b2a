import EntityStreamCore

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
public actor AnalysisRuntime {
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
        var snapshot: JSONObject?
    }

    /// Why a job could not be started.
    public enum StartError: Error, Sendable, Hashable, CustomStringConvertible {
        case jobRunning(JSONValue)
        case closed
        public var description: String {
            switch self {
            case .jobRunning(let id): return "a job with id \(id) is still running; give each command its own id"
            case .closed: return "the session is ending; no new analyses start"
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
    private let publish: @Sendable ([StreamEvent]) async -> Void
    private let submissions: AsyncStream<Submission>
    private let submit: AsyncStream<Submission>.Continuation
    private var jobs: [JSONValue: Running] = [:]
    private var closed = false

    /// `publish` puts events on the bus in order (the pipeline's publish).
    public init(environment: AnalysisEnvironment, publish: @escaping @Sendable ([StreamEvent]) async -> Void) {
        self.environment = environment
        self.publish = publish
        (submissions, submit) = AsyncStream.makeStream(of: Submission.self)
    }

    /// Runs every started job as a child task until ``close()`` (then until
    /// the running jobs end) or until the calling task is cancelled (then
    /// every job is cancelled and reports `cancelled`).
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await submission in submissions {
                group.addTask { await self.execute(submission) }
            }
        }
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
        let (signal, cancel) = AsyncStream.makeStream(of: Void.self)
        var lifecycle = AnalysisJobLifecycle()
        _ = lifecycle.start()
        jobs[id] = Running(lifecycle: lifecycle, command: command, cancel: cancel, snapshot: nil)
        var members = JSONObject()
        if let status = await environment.streamStatus?() {
            members.append(key: "stream", value: .object(JSONObject([("status", .string(status))])))
        }
        await publish([event(AnalysisEvent(job: id, command: command, phase: .accepted, members: members))])
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
        jobs[id]?.snapshot = snapshot.streamMembers
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
                    return Task.isCancelled ? .cancelled : .failed(reason: OneLine.bounded(String(describing: error)))
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
        guard case .publishFinal(let phase, var members) = running.lifecycle.finish(outcome) else { return }
        if phase == .summary {
            var stream = running.snapshot ?? JSONObject()
            if running.snapshot == nil, let status = await environment.streamStatus?() {
                stream.append(key: "status", value: .string(status))
            }
            if !stream.isEmpty { members.append(key: "stream", value: .object(stream)) }
        }
        await publish([event(AnalysisEvent(job: id, command: running.command, phase: phase, members: members))])
    }

    private nonisolated func event(_ analysis: AnalysisEvent) -> StreamEvent {
        StreamEvent(time: environment.clock.now(), payload: .analysis(analysis))
    }
}
