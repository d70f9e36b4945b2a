import EntityStreamModel

/// The geoprocessing client's own error for one request, kept typed by
/// ``GPRequestFailure`` although this module does not know the client.
public protocol GPClientError: TypedError {}

/// One ``GPClientError`` (``AnyTypedError/error`` is the error as thrown).
public typealias GPClientFailure = AnyTypedError

/// Why one request of a job's conversation failed, by case.
public enum GPRequestFailure: Sendable, Hashable, CustomStringConvertible {
    /// A status answer for job `answered`, not for `expected`.
    case otherJob(answered: String, expected: String)
    /// A poll (or `submitJob`) failed with the client's error.
    case request(GPClientFailure)
    /// The cancel request failed with the client's error.
    case cancel(GPClientFailure)

    public var description: String {
        switch self {
        case .otherJob(let answered, let expected): return "the server answered for job '\(answered)', not '\(expected)'"
        case .request(let failure): return failure.description
        case .cancel(let failure): return "cancel: \(failure.description)"
        }
    }
}

/// Why the client gave up on a job, by case.
public enum GPJobGiveUp: Sendable, Hashable, CustomStringConvertible {
    /// `count` requests failed in a row (more than the policy allows); `last` is the last one's failure.
    case requestsFailed(count: Int, last: GPRequestFailure)
    /// A request failed before `submitJob` gave a job id.
    case submitFailed(GPRequestFailure)
    /// The server did not confirm the cancel within the grace period (ms).
    case cancelUnconfirmed(graceMilliseconds: Int64)
    /// No result within the client's timeout (ms); the cancel was sent.
    case timedOut(milliseconds: Int64)

    public var description: String {
        switch self {
        case .requestsFailed(let count, let last): return "\(count) requests failed in a row; the last: \(last.description)"
        case .submitFailed(let failure): return "submitJob failed: \(failure.description)"
        case .cancelUnconfirmed(let grace): return "the server did not confirm the cancel within \(grace) ms"
        case .timedOut(let timeout): return "no result within \(timeout) ms; cancel sent"
        }
    }
}
