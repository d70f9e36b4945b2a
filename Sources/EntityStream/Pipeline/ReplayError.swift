import EntityStreamCore
import EntityStreamFeatures
import Foundation

/// A replay that cannot start, by what was wrong; ``description`` is the
/// sentence the user reads. ``isUsageError`` marks the cases that are a
/// mistake in the command (`--speed` on a file without times), not a
/// problem with the file.
public enum ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file at `path` could not be opened or read (the system's `errno`).
    case unreadable(path: String, errno: Int32)
    /// `path` is a directory.
    case isDirectory(path: String)
    /// The file (at `path`, or the name given to standard input) is not a
    /// replayable stream, or cannot be read (``RecordingError/kind``).
    case recording(path: String, RecordingError)
    /// The CSV track (at `path`) could not be read with its column mapping.
    case csvTrack(path: String, CSVError)
    /// `--speed` asked of a file whose layout (named) carries no times.
    case speedNeedsTimes(layout: String)
    /// The stream filter cannot apply to this file.
    case filter(LocalFilterError)

    public var isUsageError: Bool {
        if case .speedNeedsTimes = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let errno): return "cannot read '\(path)': \(String(cString: strerror(errno)))"
        case .isDirectory(let path): return "cannot read '\(path)': it is a directory"
        case .recording(let path, let error): return error.kind == .unreadable ? error.message : "'\(path)' \(error)"
        case .csvTrack(let path, let error): return "'\(path)': \(error)"
        case .speedNeedsTimes(let layout):
            return "--speed needs a recording made by 'entitystream record' or a CSV track (this file is \(layout), without times); use --interval"
        case .filter(let error): return "filter: \(error.description)"
        }
    }
}
