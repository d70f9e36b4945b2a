/// A request a ``GPJob`` or ``GPJobPoller`` refuses.
public enum GPJobError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `event` is not possible in `status` (e.g. succeeding a cancelled job).
    case illegalTransition(from: GPJobStatus, event: String)
    /// A job id must be 1–128 characters of A–Z, a–z, 0–9, `_` and `-` (it goes into URLs).
    case invalidJobID(String)

    public var description: String {
        switch self {
        case .illegalTransition(let from, let event):
            return "a job that is \(from.rawValue) cannot \(event)"
        case .invalidJobID(let id):
            return "invalid job id '\(id.prefix(40))': use 1–128 characters A–Z, a–z, 0–9, _ or -"
        }
    }

    static func validate(_ id: String) throws(GPJobError) {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= 128, bytes.allSatisfy({ b in
            (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 || b == 45
        }) else { throw .invalidJobID(id) }
    }
}
