/// A geoprocessing job's life, as a pure state machine with ArcGIS's
/// statuses: the same shape serves a local job runner (an `analysis` on the
/// bus), the simulator's GPServer, and the server side of tests.
///
///     submitted ─┬─ queue ──▶ waiting ─┐
///                ├────────── start ◀───┘ (or tick at submittedAt + startDelay)
///                │             ▼
///                │         executing ─┬─ succeed ──▶ succeeded
///                │                    ├─ fail ─────▶ failed
///                │                    ├─ tick past executionLimit ─▶ timedOut (+ cancelWork)
///                │                    └─ cancel ───▶ cancelling (+ cancelWork)
///                │                                     └─ workStopped / succeed / fail ─▶ cancelled
///                └─ cancel (submitted or waiting) ──▶ cancelled
///
/// Every transition returns the ``GPJobAction``s its owner must carry out
/// (publish the status, start or cancel the work, wake up at a deadline);
/// time is passed in (epoch ms), never read. A transition that is not in the
/// diagram throws ``GPJobError/illegalTransition(from:event:)`` and changes
/// nothing; `cancel` while already cancelling and `tick` on a finished job
/// do nothing. Messages (ArcGIS-style "Submitted.", "Executing...", …) accumulate
/// in ``messages``. A value type.
public struct GPJob: Sendable, Hashable {
    public let id: String
    public let timing: GPJobTiming
    public let submittedAt: Int64
    public private(set) var status: GPJobStatus
    public private(set) var messages: [GPJobMessage]
    /// Names of the output parameters, once succeeded.
    public private(set) var results: [String] = []
    public private(set) var startedAt: Int64?
    public private(set) var finishedAt: Int64?

    /// Messages kept per job (older informative ones are dropped first, and counted).
    public static let maximumMessages = 1000
    /// Messages dropped because of ``maximumMessages``.
    public private(set) var droppedMessages = 0

    private init(id: String, timing: GPJobTiming, submittedAt: Int64) {
        self.id = id
        self.timing = timing
        self.submittedAt = submittedAt
        status = .submitted
        messages = [GPJobMessage(.informative, "Submitted.")]
    }

    /// A new job, submitted at `now`, with the actions to take: publish
    /// `esriJobSubmitted` and wake up when it is due to start.
    public static func submit(id: String, at now: Int64, timing: GPJobTiming = GPJobTiming()) throws(GPJobError)
        -> (job: GPJob, actions: [GPJobAction]) {
        try GPJobError.validate(id)
        let job = GPJob(id: id, timing: timing, submittedAt: now)
        return (job, [.publish(.submitted), .wakeUp(at: job.startAt)])
    }

    /// When a submitted or waiting job starts by itself.
    public var startAt: Int64 { submittedAt.saturatingAdd(timing.startDelay) }

    /// When an executing job times out (nil without a limit or before it starts).
    public var timeoutAt: Int64? {
        guard let startedAt, let limit = timing.executionLimit else { return nil }
        return startedAt.saturatingAdd(limit)
    }

    /// The next time ``tick(at:)`` has something to do, if any.
    public var nextDeadline: Int64? {
        switch status {
        case .submitted, .waiting: return startAt
        case .executing: return timeoutAt
        default: return nil
        }
    }

    /// submitted → waiting (queued behind other jobs).
    public mutating func queue(at now: Int64) throws(GPJobError) -> [GPJobAction] {
        guard status == .submitted else { throw .illegalTransition(from: status, event: "wait") }
        status = .waiting
        add(.informative, "Waiting.")
        return [.publish(.waiting)]
    }

    /// submitted or waiting → executing: start the work.
    public mutating func start(at now: Int64) throws(GPJobError) -> [GPJobAction] {
        guard status == .submitted || status == .waiting else { throw .illegalTransition(from: status, event: "start") }
        status = .executing
        startedAt = now
        add(.informative, "Executing...")
        var actions: [GPJobAction] = [.publish(.executing), .startWork]
        if let timeoutAt { actions.append(.wakeUp(at: timeoutAt)) }
        return actions
    }

    /// An informative (or warning) message from the running work.
    public mutating func note(_ description: String, kind: GPJobMessage.Kind = .informative) throws(GPJobError) {
        guard status == .executing || status == .cancelling else { throw .illegalTransition(from: status, event: "add a message") }
        add(kind, description)
    }

    /// executing → succeeded with the named results; cancelling → cancelled
    /// (the work finished as it was being cancelled: the result is discarded).
    public mutating func succeed(results names: [String], at now: Int64) throws(GPJobError) -> [GPJobAction] {
        switch status {
        case .executing:
            status = .succeeded
            results = names
            finishedAt = now
            add(.informative, "Succeeded.")
            return [.publish(.succeeded)]
        case .cancelling:
            return finishCancelling(at: now, note: "The work finished while cancelling; its result was discarded.")
        default:
            throw .illegalTransition(from: status, event: "succeed")
        }
    }

    /// executing → failed with an error message; cancelling → cancelled.
    public mutating func fail(_ message: String, at now: Int64) throws(GPJobError) -> [GPJobAction] {
        switch status {
        case .executing:
            status = .failed
            finishedAt = now
            add(.error, message)
            add(.error, "Failed.")
            return [.publish(.failed)]
        case .cancelling:
            return finishCancelling(at: now, note: message)
        default:
            throw .illegalTransition(from: status, event: "fail")
        }
    }

    /// Submitted or waiting → cancelled at once (nothing runs yet);
    /// executing → cancelling, asking the work to stop; cancelling: nothing.
    public mutating func cancel(at now: Int64) throws(GPJobError) -> [GPJobAction] {
        switch status {
        case .submitted, .waiting:
            status = .cancelled
            finishedAt = now
            add(.informative, "Cancelled.")
            return [.publish(.cancelled)]
        case .executing:
            status = .cancelling
            add(.informative, "Cancelling...")
            return [.publish(.cancelling), .cancelWork]
        case .cancelling:
            return []
        default:
            throw .illegalTransition(from: status, event: "cancel")
        }
    }

    /// The work stopped after ``GPJobAction/cancelWork``: cancelling → cancelled.
    public mutating func workStopped(at now: Int64) throws(GPJobError) -> [GPJobAction] {
        guard status == .cancelling else { throw .illegalTransition(from: status, event: "stop its work") }
        return finishCancelling(at: now, note: nil)
    }

    /// Time passes: a due submitted or waiting job starts; an executing job
    /// past its limit times out (its work is cancelled). Otherwise a wake-up
    /// for the next deadline, or nothing.
    public mutating func tick(at now: Int64) -> [GPJobAction] {
        switch status {
        case .submitted, .waiting:
            if now >= startAt, let actions = try? start(at: now) { return actions }
            return [.wakeUp(at: startAt)]
        case .executing:
            guard let timeoutAt else { return [] }
            guard now >= timeoutAt else { return [.wakeUp(at: timeoutAt)] }
            status = .timedOut
            finishedAt = now
            add(.error, "Timed out after \(timing.executionLimit ?? 0) ms.")
            return [.cancelWork, .publish(.timedOut)]
        default:
            return []
        }
    }

    private mutating func finishCancelling(at now: Int64, note: String?) -> [GPJobAction] {
        status = .cancelled
        finishedAt = now
        if let note { add(.informative, note) }
        add(.informative, "Cancelled.")
        return [.publish(.cancelled)]
    }

    private mutating func add(_ kind: GPJobMessage.Kind, _ description: String) {
        if messages.count >= GPJob.maximumMessages,
           let index = messages.firstIndex(where: { $0.kind == .informative }) ?? messages.indices.first {
            messages.remove(at: index)
            droppedMessages += 1
        }
        messages.append(GPJobMessage(kind, String(description.prefix(4096))))
    }
}

extension Int64 {
    /// `self + other`, saturating at the Int64 bounds instead of trapping.
    func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
