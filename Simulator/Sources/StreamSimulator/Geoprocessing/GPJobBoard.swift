import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamLocking
import EntityStreamModel

/// The jobs of one simulated geoprocessing service: each job's ``GPJob``
/// state machine, its parameters, and what it produced, driven in real time.
///
/// A job's timeline with a job delay `d` (`--job-delay`) and an execution
/// time `e` (`--job-execution`, `d` unless given): `esriJobSubmitted` for
/// `d`, `esriJobWaiting` for `d`, then `esriJobExecuting` while the engine
/// runs (on a low-priority task) and at least `e` in all, then
/// `esriJobSucceeded` (or `esriJobFailed` with the engine's message). With
/// `d = 0` a job starts at once. A cancel while submitted or waiting ends
/// it `esriJobCancelled` at once; while executing it is `esriJobCancelling`
/// at once (the engine is asked to stop at its next poll, and the rest of
/// `e` is not waited for) for `d`, then `esriJobCancelled`; a finished job
/// cannot be cancelled (its status is answered unchanged). At most
/// ``maximumJobs`` are kept: the oldest finished job is forgotten (and
/// logged) to make room; when every kept job is still running a submit is
/// refused.
///
/// Bounded under load: at most `maximumExecuting` jobs (default 2, one per
/// core) run the engine at once; the others stay `esriJobWaiting`, in order,
/// holding only their parameters, until a slot frees; with
/// ``maximumPending`` jobs not yet finished, a submit is refused (HTTP 503,
/// ArcGIS's error JSON), so memory stays bounded whatever is submitted.
/// An actor.
actor GPJobBoard {
    private struct Entry {
        var job: GPJob
        let request: HotSpotTask.Request
        var outcome: HotSpotTask.Outcome?
        let stop: LockedState<Bool>
        /// The wait for the rest of the execution time; a cancel ends it.
        var hold: Task<Void, Never>?
    }

    static let maximumJobs = 1000
    /// Jobs submitted, waiting or executing at most; more are refused.
    static let maximumPending = 64
    /// Job delays are clamped to a day.
    static let maximumDelay: Int64 = 86_400_000

    let task: HotSpotTask
    let delay: Int64
    let execution: Int64
    let maxRecordCount: Int
    private let log: @Sendable (String) -> Void
    private let clock = SystemClock()
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    let maximumExecuting: Int
    private var executing = 0
    private var slotWaiters: [CheckedContinuation<Void, Never>] = []

    /// `execution` nil: jobs execute at least `delay`.
    init(task: HotSpotTask, delay: Int64, execution: Int64? = nil, maxRecordCount: Int, maximumExecuting: Int = 2,
         log: @escaping @Sendable (String) -> Void) {
        self.task = task
        self.maximumExecuting = max(1, maximumExecuting)
        self.delay = min(max(0, delay), Self.maximumDelay)
        self.execution = min(max(0, execution ?? delay), Self.maximumDelay)
        self.maxRecordCount = maxRecordCount
        self.log = log
    }

    /// Submits a job; throws the ArcGIS error to answer when the board is full.
    func submit(_ request: HotSpotTask.Request) throws(ArcGISError) -> GPSubmitJobResponse {
        let pending = entries.values.count { !$0.job.status.isTerminal }
        guard pending < Self.maximumPending else {
            throw ArcGISError(code: 503, message: "Too many jobs: \(pending) are waiting or executing (at most \(Self.maximumPending), \(maximumExecuting) at once); try again when one has finished.")
        }
        if entries.count >= Self.maximumJobs {
            guard let oldest = order.first(where: { entries[$0]?.job.status.isTerminal == true }) else {
                throw ArcGISError(code: 503, message: "Too many jobs are running (\(Self.maximumJobs)); try again later.")
            }
            entries[oldest] = nil
            order.removeAll { $0 == oldest }
            log("hotspots \(task.serviceName): forgot finished job \(oldest) to keep at most \(Self.maximumJobs) jobs")
        }
        var generator = SystemRandomNumberGenerator()
        let id = "j" + String(generator.next(), radix: 16) + String(generator.next(), radix: 16)
        let submitted: GPJob
        do { (submitted, _) = try GPJob.submit(id: id, at: clock.now(), timing: GPJobTiming(startDelay: 2 * delay)) } catch {
            throw ArcGISError(code: 500, message: "Unable to create the job.", details: [error.description])
        }
        entries[id] = Entry(job: submitted, request: request, outcome: nil, stop: LockedState(false))
        order.append(id)
        Task { await self.drive(id) }
        return GPSubmitJobResponse(jobID: id, status: submitted.status)
    }

    /// The job's status, messages and result links; nil for an unknown id.
    func info(_ id: String) -> GPJobInfo? {
        guard let entry = entries[id] else { return nil }
        return GPJobInfo(job: entry.job, inputs: entry.request.inputs.map(\.name))
    }

    /// Cancels the job if it can be; answers its status either way (nil: unknown id).
    func cancel(_ id: String) -> GPJobInfo? {
        guard var entry = entries[id] else { return nil }
        if !entry.job.status.isTerminal, let actions = try? entry.job.cancel(at: clock.now()) {
            if actions.contains(.cancelWork) {
                entry.stop.withLock { $0 = true }
                entry.hold?.cancel()
            }
            entries[id] = entry
            log("hotspots \(task.serviceName): job \(id) \(entry.job.status.rawValue)")
        }
        return GPJobInfo(job: entry.job, inputs: entry.request.inputs.map(\.name))
    }

    /// The body of `results/<name>`, once succeeded.
    func result(_ id: String, name: String) -> [UInt8]? {
        guard name == HotSpotTask.resultName, let outcome = entries[id]?.outcome else { return nil }
        return outcome.resultBody
    }

    /// `inputs/<name>` as `{"paramName","dataType","value"}`.
    func input(_ id: String, name: String) -> GPResultParameter? {
        guard let input = entries[id]?.request.inputs.first(where: { $0.name == name }) else { return nil }
        return GPResultParameter(name: input.name, dataType: input.dataType, value: input.value)
    }

    /// The result map service layer of a succeeded job.
    func layer(_ id: String) -> SimulatedLayer? { entries[id]?.outcome?.layer }

    /// The most recently submitted job that has succeeded, if any (what a map shows).
    func latestSucceededJob() -> String? {
        order.last { entries[$0]?.job.status == .succeeded }
    }

    /// True when `id` names a job (for 404s).
    func knows(_ id: String) -> Bool { entries[id] != nil }

    // MARK: The timeline

    private func status(_ id: String) -> GPJobStatus? { entries[id]?.job.status }

    private func sleep(_ milliseconds: Int64) async {
        guard milliseconds > 0 else { return }
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }

    /// Waits `milliseconds`, or until the job is cancelled.
    private func hold(_ id: String, for milliseconds: Int64) async {
        let sleeper = Task { _ = try? await Task.sleep(for: .milliseconds(milliseconds)) }
        entries[id]?.hold = sleeper
        await sleeper.value
        entries[id]?.hold = nil
    }

    private func acquireSlot() async {
        if executing < maximumExecuting {
            executing += 1
            return
        }
        await withCheckedContinuation { slotWaiters.append($0) }
    }

    /// Hands the slot to the next waiting job, or frees it.
    private func releaseSlot() {
        if slotWaiters.isEmpty {
            executing -= 1
        } else {
            slotWaiters.removeFirst().resume()
        }
    }

    private func drive(_ id: String) async {
        if delay > 0 {
            await sleep(delay)
            guard status(id) == .submitted else { return }
            _ = try? entries[id]?.job.queue(at: clock.now())
            await sleep(delay)
        }
        // Wait for an executing slot, as esriJobWaiting.
        if status(id) == .submitted { _ = try? entries[id]?.job.queue(at: clock.now()) }
        await acquireSlot()
        defer { releaseSlot() }
        guard var entry = entries[id], entry.job.status == .submitted || entry.job.status == .waiting,
              (try? entry.job.start(at: clock.now())) != nil else { return }
        entries[id] = entry
        let started = clock.now()
        let stop = entry.stop
        let (task, request, limit) = (self.task, entry.request, maxRecordCount)
        let outcome: Result<HotSpotTask.Outcome, any Error>
        do {
            let table = try await task.incidentTable()
            outcome = await Task.detached(priority: .low) {
                Result { try task.run(request, on: table, maxRecordCount: limit, shouldStop: { stop.withLock { $0 } }) }
            }.value
        } catch {
            outcome = .failure(error)
        }
        let rest = started + execution - clock.now()
        if rest > 0, status(id) == .executing { await hold(id, for: rest) }
        guard var current = entries[id] else { return }
        let now = clock.now()
        switch current.job.status {
        case .cancelling:
            entries[id] = current
            await sleep(delay)
            guard var stopping = entries[id], stopping.job.status == .cancelling else { return }
            _ = try? stopping.job.workStopped(at: clock.now())
            entries[id] = stopping
        case .executing:
            switch outcome {
            case .success(let produced):
                for message in produced.messages { try? current.job.note(message.description, kind: message.kind) }
                _ = try? current.job.succeed(results: [HotSpotTask.resultName], at: now)
                current.outcome = produced
            case .failure(let error):
                let message = (error as? HotSpotError)?.description ?? (error as? HotSpotSelectionError)?.description
                    ?? (error as? SimulatorError)?.description ?? String(describing: error)
                _ = try? current.job.fail("ERROR: \(message)", at: now)
            }
            entries[id] = current
        default:
            return
        }
        log("hotspots \(self.task.serviceName): job \(id) \(entries[id]?.job.status.rawValue ?? "gone")")
    }
}
