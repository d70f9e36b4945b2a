import EntityStreamCore
import EntityStreamModel

/// One remote geoprocessing job's conversation after `submitJob` answered,
/// as a pure state machine: it wraps a ``GPJobPoller`` (when to poll,
/// cancel, fetch or give up) and decides what the caller does next, one
/// ``Action`` at a time: report the job's status and new messages (one
/// report per change, before the next request), wait, poll, send the
/// cancel, fetch the result, or end with a typed ``Ending``.
///
/// The caller (the I/O shell) carries out each action and feeds back what
/// happened, with the time and whether the user asked to cancel; every
/// input returns the next action. Time is passed in (epoch ms), so tests
/// drive it with a manual clock. A value type.
public struct GPJobConversation: Sendable {
    /// What the caller does next.
    public enum Action: Sendable, Hashable {
        /// Report the job's status with the messages not reported yet; then ``reported(at:cancelRequested:)``.
        case report(GPJobStatus, messages: [GPJobMessage])
        /// Sleep until this time (or until a cancel is asked for); then ``woke(at:cancelRequested:)``.
        case wait(until: Int64)
        /// GET `jobs/<id>`; then ``received(_:at:cancelRequested:)`` or ``requestFailed(_:at:cancelRequested:)``.
        case poll(jobID: String)
        /// POST `jobs/<id>/cancel`; then ``received(_:at:cancelRequested:)`` with its answer, or
        /// ``requestFailed(_:at:cancelRequested:)`` (a ``GPRequestFailure/cancel(_:)``).
        case sendCancel(jobID: String)
        /// GET `jobs/<id>/results/<name>`, deliver its features, then ``fetched(_:name:at:cancelRequested:)``.
        case fetchResult(jobID: String, name: String)
        /// The conversation is over.
        case end(Ending)
    }

    /// How the conversation ended.
    public enum Ending: Sendable, Hashable {
        /// The job succeeded and its result was fetched.
        case succeeded(GPJobResult)
        /// The user asked to cancel, and the server confirmed (or the job never got further).
        case cancelled
        /// The job ended with another final status; `errors` are its error messages.
        case ended(GPJobStatus, errors: [String])
        /// The client gave up (requests failed, timeout, unconfirmed cancel).
        case gaveUp(GPJobGiveUp)
        /// The server stopped answering before a final status.
        case noFinalStatus
    }

    public let jobID: String
    /// The result parameter preferred (else the job's first).
    public let resultName: String
    private var poller: GPJobPoller
    private var pending: [GPJobPollAction] = []
    /// An action held while the report it must follow goes out.
    private var held: GPJobPollAction?
    private var status: GPJobStatus
    private var statusUnreported = false
    private var newMessages: [GPJobMessage] = []
    private var messageCount = 0
    private var errorMessages: [String] = []
    private var cancelSent = false
    private var finalStatus: GPJobStatus?
    private var gaveUp: GPJobGiveUp?
    private var result: GPJobResult?
    private var ending: Ending?

    /// `submitJob` answered with `response` at `now`.
    public init(submitted response: GPSubmitJobResponse, policy: GPJobPollPolicy, resultName: String, at now: Int64) {
        jobID = response.jobID
        self.resultName = resultName
        poller = GPJobPoller(policy: policy)
        status = response.status
        add(poller.submitted(response, at: now))
    }

    /// The first action.
    public mutating func start(at now: Int64, cancelRequested: Bool) -> Action {
        advance(at: now, cancelRequested: cancelRequested)
    }

    /// The report went out.
    public mutating func reported(at now: Int64, cancelRequested: Bool) -> Action {
        if let action = held {
            held = nil
            if let next = perform(action, at: now, cancelRequested: cancelRequested) { return next }
        }
        return advance(at: now, cancelRequested: cancelRequested)
    }

    /// The wait ended (its deadline passed, or a cancel was asked for).
    public mutating func woke(at now: Int64, cancelRequested: Bool) -> Action {
        // A cancel asked for during the wait is sent before anything else.
        if !(cancelRequested && !cancelSent) { add(poller.tick(at: now)) }
        return advance(at: now, cancelRequested: cancelRequested)
    }

    /// The job's status (a poll's answer, or the cancel's).
    public mutating func received(_ info: GPJobInfo, at now: Int64, cancelRequested: Bool) -> Action {
        add(poller.received(info, at: now))
        return advance(at: now, cancelRequested: cancelRequested)
    }

    /// A poll or the cancel failed.
    public mutating func requestFailed(_ failure: GPRequestFailure, at now: Int64, cancelRequested: Bool) -> Action {
        add(poller.requestFailed(failure, at: now))
        return advance(at: now, cancelRequested: cancelRequested)
    }

    /// The result parameter `name` was fetched and its features delivered.
    public mutating func fetched(_ set: GPFeatureRecordSet, name: String, at now: Int64, cancelRequested: Bool) -> Action {
        var bins = HotSpotBinCounts()
        for feature in set.features {
            if let bin = feature.attributes["Gi_Bin"]?.intValue { bins[Int(bin)] += 1 }
        }
        result = GPJobResult(jobID: jobID, resultName: name, outputWKID: set.wkid, features: set.features.count, messages: 0, bins: bins)
        return advance(at: now, cancelRequested: cancelRequested)
    }

    // MARK: Deciding

    private mutating func add(_ actions: [GPJobPollAction]) {
        if actions.contains(where: { if case .waitUntil = $0 { return true }; return false }) {
            pending.removeAll { if case .waitUntil = $0 { return true }; return false }
        }
        pending += actions
    }

    private var reportDue: Bool { statusUnreported || !newMessages.isEmpty }

    private mutating func report() -> Action {
        let action = Action.report(status, messages: newMessages)
        statusUnreported = false
        newMessages.removeAll()
        return action
    }

    /// Takes pending actions until one is for the caller; reports go out
    /// before the action they precede.
    private mutating func advance(at now: Int64, cancelRequested: Bool) -> Action {
        if let ending { return .end(ending) }
        while !pending.isEmpty || (cancelRequested && !cancelSent && finalStatus == nil && gaveUp == nil) {
            if cancelRequested, !cancelSent {
                cancelSent = true
                add(poller.cancel(at: now))
            }
            guard !pending.isEmpty else { break }
            let action = pending.removeFirst()
            switch action {
            case .statusChanged(_, let to):
                status = to
                statusUnreported = true
                continue
            case .newMessages(let messages):
                newMessages += messages
                messageCount += messages.count
                errorMessages += messages.filter { $0.kind == .error }.map(\.description)
                continue
            default:
                if reportDue {
                    held = action
                    return report()
                }
                if let next = perform(action, at: now, cancelRequested: cancelRequested) { return next }
            }
        }
        if reportDue { return report() }
        let ending = finish(cancelRequested: cancelRequested)
        self.ending = ending
        return .end(ending)
    }

    /// The caller's action for a poller action, or nil when it only changes the state.
    private mutating func perform(_ action: GPJobPollAction, at now: Int64, cancelRequested: Bool) -> Action? {
        switch action {
        case .waitUntil(let deadline): return .wait(until: deadline)
        case .poll(let id): return .poll(jobID: id)
        case .sendCancel(let id): return .sendCancel(jobID: id)
        case .fetchResults(let id, let names):
            guard !cancelRequested else { return nil }
            guard let name = names.contains(resultName) ? resultName : names.first else { return nil }
            return .fetchResult(jobID: id, name: name)
        case .finished(let final):
            finalStatus = final
            return nil
        case .giveUp(let reason):
            gaveUp = reason
            return nil
        case .statusChanged, .newMessages:
            return nil
        }
    }

    private func finish(cancelRequested: Bool) -> Ending {
        if let gaveUp { return .gaveUp(gaveUp) }
        switch finalStatus {
        case .succeeded?:
            // No result parameter (or a cancel asked for before the fetch): a summary with no features.
            var result = result ?? GPJobResult(jobID: jobID, resultName: nil, outputWKID: nil, features: 0, messages: 0, bins: HotSpotBinCounts())
            result.messages = messageCount
            return .succeeded(result)
        case .cancelled? where cancelSent:
            return .cancelled
        case let final?:
            return .ended(final, errors: errorMessages)
        case nil:
            return cancelRequested ? .cancelled : .noFinalStatus
        }
    }
}

/// What a succeeded remote hot-spot job produced, counted as its features
/// were delivered: the summary's facts. A value type.
public struct GPJobResult: Sendable, Hashable {
    public var jobID: String
    /// The result parameter that was fetched (nil: none was).
    public var resultName: String?
    /// The result's spatial reference, when it gave one.
    public var outputWKID: Int?
    /// Features delivered.
    public var features: Int
    /// Messages the job reported in all.
    public var messages: Int
    /// Features per `Gi_Bin`.
    public var bins: HotSpotBinCounts

    public init(jobID: String, resultName: String?, outputWKID: Int?, features: Int, messages: Int, bins: HotSpotBinCounts) {
        self.jobID = jobID
        self.resultName = resultName
        self.outputWKID = outputWKID
        self.features = features
        self.messages = messages
        self.bins = bins
    }
}
