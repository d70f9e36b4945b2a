/// A replay that cannot start, by what was wrong; ``description`` is the
/// sentence the user reads. ``isUsageError`` marks the cases that are a
/// mistake in the command (`--speed` on a file without times), not a
/// problem with the file.
public enum ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read: the sentence names it and the system's reason.
    case unreadable(String)
    /// The file (at `path`) is not a replayable stream: the reader's reason.
    case invalidFile(path: String, reason: String)
    /// The CSV track (at `path`) could not be read with its column mapping: the reason.
    case invalidCSVTrack(path: String, reason: String)
    /// `--speed` asked of a file whose layout (named) carries no times.
    case speedNeedsTimes(layout: String)
    /// The stream filter cannot apply to this file: the reason.
    case filter(String)

    public var isUsageError: Bool {
        if case .speedNeedsTimes = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unreadable(let sentence): return sentence
        case .invalidFile(let path, let reason): return "'\(path)' \(reason)"
        case .invalidCSVTrack(let path, let reason): return "'\(path)': \(reason)"
        case .speedNeedsTimes(let layout):
            return "--speed needs a recording made by 'entitystream record' or a CSV track (this file is \(layout), without times); use --interval"
        case .filter(let problem): return "filter: \(problem)"
        }
    }
}
