/// The client side of a remote geoprocessing job: a pure state machine that
/// decides when to poll `jobs/<id>`, what to report, when to fetch results,
/// cancel or give up. The caller performs the HTTP requests and sleeps; time
/// is passed in (epoch ms).
///
/// Use: after `submitJob` answers, ``submitted(_:at:)``; when a
/// ``GPJobPollAction/waitUntil(_:)`` deadline passes, ``tick(at:)`` (which
/// says ``GPJobPollAction/poll(jobID:)``); with each status response,
/// ``received(_:at:)``; with each failed request, ``requestFailed(_:at:)``;
/// on Ctrl-C, ``cancel(at:)``. The actions come in the order to carry them
/// out. Back-off follows ``GPJobPollPolicy``. A response for another job id
/// counts as a failed request. After ``GPJobPollAction/finished(_:)`` or
/// ``GPJobPollAction/giveUp(_:)`` every call returns nothing. A value type.
public struct GPJobPoller: Sendable, Hashable {
    /// Where the conversation stands.
    public enum Phase: Sendable, Hashable {
        case submitting
        case polling
        /// Cancel sent (or to be sent once the job id is known).
        case cancelling
        case finished(GPJobStatus)
        case gaveUp(GPJobGiveUp)
    }

    public let policy: GPJobPollPolicy
    public private(set) var phase: Phase = .submitting
    public private(set) var jobID: String?
    public private(set) var status: GPJobStatus?
    /// Messages already reported.
    public private(set) var messagesSeen = 0
    public private(set) var submittedAt: Int64?
    public private(set) var nextPollAt: Int64?
    private var interval: Int64
    private var consecutiveErrors = 0
    private var cancelRequestedAt: Int64?

    public init(policy: GPJobPollPolicy = GPJobPollPolicy()) {
        self.policy = policy
        interval = policy.initialInterval
    }

    private var isOver: Bool {
        switch phase {
        case .finished, .gaveUp: return true
        default: return false
        }
    }

    /// `submitJob` answered.
    public mutating func submitted(_ response: GPSubmitJobResponse, at now: Int64) -> [GPJobPollAction] {
        guard phase == .submitting || (phase == .cancelling && jobID == nil) else { return [] }
        jobID = response.jobID
        submittedAt = now
        var actions: [GPJobPollAction] = [.statusChanged(from: nil, to: response.status)]
        status = response.status
        if response.status.isTerminal { return actions + finish(response.status) }
        if phase == .cancelling {
            cancelRequestedAt = now
            actions.append(.sendCancel(jobID: response.jobID))
        } else {
            phase = .polling
        }
        return actions + schedule(now: now)
    }

    /// The time came: poll, or keep waiting.
    public mutating func tick(at now: Int64) -> [GPJobPollAction] {
        guard !isOver, let jobID, let nextPollAt else { return [] }
        if let expired = expiry(at: now) { return expired }
        return now >= nextPollAt ? [.poll(jobID: jobID)] : [.waitUntil(nextPollAt)]
    }

    /// A status response arrived.
    public mutating func received(_ info: GPJobInfo, at now: Int64) -> [GPJobPollAction] {
        guard !isOver, let jobID else { return [] }
        guard info.jobID == jobID else { return requestFailed(.otherJob(answered: info.jobID, expected: jobID), at: now) }
        consecutiveErrors = 0
        var actions: [GPJobPollAction] = []
        if info.status != status {
            actions.append(.statusChanged(from: status, to: info.status))
            status = info.status
            interval = policy.initialInterval
        } else {
            interval = policy.next(after: interval)
        }
        if info.messages.count > messagesSeen {
            actions.append(.newMessages(Array(info.messages[messagesSeen...])))
            messagesSeen = info.messages.count
        } else if info.messages.count < messagesSeen {
            messagesSeen = info.messages.count   // a server that trims its messages
        }
        if info.status.isTerminal {
            if info.status == .succeeded { actions.append(.fetchResults(jobID: jobID, names: info.results.map(\.name))) }
            return actions + finish(info.status)
        }
        if let expired = expiry(at: now) { return actions + expired }
        return actions + schedule(now: now)
    }

    /// A request (status or cancel) failed: retry with back-off, or give up.
    public mutating func requestFailed(_ failure: GPRequestFailure, at now: Int64) -> [GPJobPollAction] {
        guard !isOver else { return [] }
        consecutiveErrors += 1
        if consecutiveErrors > policy.maximumConsecutiveErrors {
            return giveUp(.requestsFailed(count: consecutiveErrors, last: failure))
        }
        guard jobID != nil else { return giveUp(.submitFailed(failure)) }
        interval = policy.next(after: interval)
        if let expired = expiry(at: now) { return expired }
        return schedule(now: now)
    }

    /// The user asked to cancel: send `cancel` (now, or as soon as the job id
    /// is known) and keep polling until the server confirms.
    public mutating func cancel(at now: Int64) -> [GPJobPollAction] {
        switch phase {
        case .submitting:
            phase = .cancelling
            return []
        case .polling:
            phase = .cancelling
            cancelRequestedAt = now
            interval = policy.initialInterval
            guard let jobID else { return [] }
            return [.sendCancel(jobID: jobID)] + schedule(now: now)
        default:
            return []
        }
    }

    private mutating func schedule(now: Int64) -> [GPJobPollAction] {
        var deadline = now.saturatingAdd(interval)
        if let submittedAt, let timeout = policy.timeout, phase != .cancelling {
            deadline = min(deadline, submittedAt.saturatingAdd(timeout))
        }
        if let cancelRequestedAt { deadline = min(deadline, cancelRequestedAt.saturatingAdd(policy.cancelGrace)) }
        nextPollAt = deadline
        return [.waitUntil(deadline)]
    }

    /// Client-side limits: the overall timeout cancels the job; an
    /// unconfirmed cancel gives up after the grace period.
    private mutating func expiry(at now: Int64) -> [GPJobPollAction]? {
        if let cancelRequestedAt, now >= cancelRequestedAt.saturatingAdd(policy.cancelGrace) {
            return giveUp(.cancelUnconfirmed(graceMilliseconds: policy.cancelGrace))
        }
        if phase == .polling, let submittedAt, let timeout = policy.timeout, now >= submittedAt.saturatingAdd(timeout), let jobID {
            return [.sendCancel(jobID: jobID)] + giveUp(.timedOut(milliseconds: timeout))
        }
        return nil
    }

    private mutating func finish(_ status: GPJobStatus) -> [GPJobPollAction] {
        phase = .finished(status)
        nextPollAt = nil
        return [.finished(status)]
    }

    private mutating func giveUp(_ reason: GPJobGiveUp) -> [GPJobPollAction] {
        phase = .gaveUp(reason)
        nextPollAt = nil
        return [.giveUp(reason)]
    }
}

/// What the caller of a ``GPJobPoller`` does next.
public enum GPJobPollAction: Sendable, Hashable {
    /// GET `jobs/<id>?f=json&returnMessages=true`.
    case poll(jobID: String)
    /// Sleep until this time (epoch ms), then call ``GPJobPoller/tick(at:)``.
    case waitUntil(Int64)
    /// Report a status change (`from` is nil for the first status).
    case statusChanged(from: GPJobStatus?, to: GPJobStatus)
    /// Report messages not reported before.
    case newMessages([GPJobMessage])
    /// POST `jobs/<id>/cancel`.
    case sendCancel(jobID: String)
    /// GET `jobs/<id>/results/<name>` for each name.
    case fetchResults(jobID: String, names: [String])
    /// The job ended with this status.
    case finished(GPJobStatus)
    /// Stop: the reason says why.
    case giveUp(GPJobGiveUp)
}
