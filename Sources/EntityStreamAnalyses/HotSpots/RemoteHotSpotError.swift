import EntityStreamHotSpots

/// Why a remote hot-spot job (``RemoteHotSpotJob``) failed after the
/// service accepted it, by how the conversation ended; the requests' own
/// failures are the client's ``GeoprocessingError``. ``description`` is the
/// `failed` line's `error` text.
public enum RemoteHotSpotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The result parameter `name` from the task (its display URL) is not a feature set.
    case result(name: String, task: String, GPRESTError)
    /// The client gave up on the job at the task (requests failed, a timeout, an unconfirmed cancel).
    case gaveUp(jobID: String, task: String, GPJobGiveUp)
    /// The job ended with a final status other than succeeded; `errors` are its error messages.
    case ended(jobID: String, GPJobStatus, errors: [String])
    /// The service stopped answering before the job reached a final status.
    case noFinalStatus(jobID: String)

    public var description: String {
        switch self {
        case .result(let name, let task, let error):
            return "result \(name) from \(task): \(error.description)"
        case .gaveUp(let jobID, let task, let reason):
            return "job \(jobID) at \(task): \(reason.description)"
        case .ended(let jobID, let status, let errors):
            return "job \(jobID) ended \(status.rawValue)" + (errors.isEmpty ? "" : ": " + errors.joined(separator: "; "))
        case .noFinalStatus(let jobID):
            return "job \(jobID): the conversation ended without a final status"
        }
    }
}
