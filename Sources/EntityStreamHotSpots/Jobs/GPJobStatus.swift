/// A geoprocessing job's status, spelled as ArcGIS REST spells it
/// (ArcObjects `esriJobStatus`, plus `expectedFailure` from newer servers).
///
/// Terminal statuses (``isTerminal``): succeeded, failed, timed out,
/// cancelled, deleted, expected failure. ``init(parsing:)`` accepts exactly
/// the wire spellings and throws ``GPRESTError/unknownStatus(_:)`` otherwise.
public enum GPJobStatus: String, Sendable, Hashable, CaseIterable {
    case new = "esriJobNew"
    case submitted = "esriJobSubmitted"
    case waiting = "esriJobWaiting"
    case executing = "esriJobExecuting"
    case succeeded = "esriJobSucceeded"
    case failed = "esriJobFailed"
    case timedOut = "esriJobTimedOut"
    case cancelling = "esriJobCancelling"
    case cancelled = "esriJobCancelled"
    case deleting = "esriJobDeleting"
    case deleted = "esriJobDeleted"
    case expectedFailure = "expectedFailure"

    public init(parsing text: String) throws(GPRESTError) {
        guard let status = GPJobStatus(rawValue: text) else { throw .unknownStatus(text) }
        self = status
    }

    /// No further status will follow.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .timedOut, .cancelled, .deleted, .expectedFailure: return true
        case .new, .submitted, .waiting, .executing, .cancelling, .deleting: return false
        }
    }

    /// The job ended without a result it was asked for.
    public var isFailure: Bool { self == .failed || self == .timedOut || self == .expectedFailure }
}
