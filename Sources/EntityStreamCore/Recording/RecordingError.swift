import Glibc
import EntityStreamModel

/// A recording (or feature file replayed as one) that cannot be read, by what
/// is wrong; cases about one place carry its line, and ``description`` reads
/// `line N: …` for them. ``kind`` tells a file that cannot be read from one
/// whose contents are wrong.
public enum RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Hashable {
        /// The file's contents are wrong (``line`` says where, when known).
        case invalid
        /// The file could not be opened or read.
        case unreadable
    }

    /// Nothing but white space.
    case empty
    /// No message in it.
    case noMessages
    /// A JSON array that does not parse (the line of the fault).
    case arrayJSON(line: Int, JSONError)
    /// Text after the array's closing `]`.
    case textAfterArray(line: Int)
    /// A file starting as an array but without its `[`.
    case arrayNotOpened(line: Int)
    /// A `}` closing nothing at the array's top level.
    case arrayUnbalanced(line: Int)
    /// The array ends without its `]`.
    case arrayNotClosed(line: Int)
    /// One array element over the size limit (`limit` bytes), starting at `line`.
    case elementTooLong(line: Int, limit: Int)
    /// A header line that is not JSON.
    case headerJSON(line: Int, JSONError)
    /// A header of another format version (`found`: its version member, nil when absent).
    case unsupportedVersion(line: Int, found: JSONValue?, supported: Int)
    /// A header without the recorded service description.
    case headerWithoutDescription(line: Int)
    /// A header without `service` (the URL recorded).
    case headerWithoutService(line: Int)
    /// A header without `startedAt`.
    case headerWithoutStartedAt(line: Int)
    /// The header's service description cannot be read.
    case unusableDescription(ServiceDescriptionError)
    /// The header's service description gives no schema (no usable track-id field).
    case descriptionSchema(ServiceDescriptionError)
    /// No Esri feature JSON in the first `sampled` messages.
    case noFeatures(sampled: Int)
    /// `--track-field` names a field the features lack (`fields`: theirs).
    case unknownTrackField(String, fields: [String])
    /// Plain features, no service description and no `--track-field` (`fields`: theirs).
    case noTrackField(fields: [String])
    /// The file cannot be opened or read (the system's `errno`).
    case unreadable(path: String, errno: Int32)
    /// The path is a directory.
    case isDirectory(path: String)
    /// The file cannot be read again from its start, for `--loop` (the system's `errno`).
    case unreadableAgain(path: String, errno: Int32)

    /// The line the problem is on, when it is about one.
    public var line: Int? {
        switch self {
        case .arrayJSON(let line, _), .textAfterArray(let line), .arrayNotOpened(let line), .arrayUnbalanced(let line),
             .arrayNotClosed(let line), .elementTooLong(let line, _), .headerJSON(let line, _), .unsupportedVersion(let line, _, _),
             .headerWithoutDescription(let line), .headerWithoutService(let line), .headerWithoutStartedAt(let line):
            return line
        case .unusableDescription, .descriptionSchema: return 1
        case .empty, .noMessages, .noFeatures, .unknownTrackField, .noTrackField, .unreadable, .isDirectory, .unreadableAgain:
            return nil
        }
    }

    /// Whether the file could not be read or its contents are wrong.
    public var kind: Kind {
        switch self {
        case .unreadable, .isDirectory, .unreadableAgain: return .unreadable
        default: return .invalid
        }
    }

    /// What is wrong, without the line.
    public var message: String {
        switch self {
        case .empty: return "the file is empty"
        case .noMessages: return "holds no messages"
        case .arrayJSON(_, let error): return "the JSON array is invalid: \(error)"
        case .textAfterArray: return "the JSON array is invalid: text after its closing ']'"
        case .arrayNotOpened: return "the JSON array is invalid: expected '['"
        case .arrayUnbalanced: return "the JSON array is invalid: unbalanced '}'"
        case .arrayNotClosed: return "the JSON array is invalid: it is not closed with ']'"
        case .elementTooLong(_, let limit): return "an array element longer than \(limit) bytes"
        case .headerJSON(_, let error): return "invalid recording header: \(error)"
        case .unsupportedVersion(_, let found, let supported):
            return "unsupported recording version \(found?.description ?? "(none)") (this program reads version \(supported))"
        case .headerWithoutDescription: return "the recording header has no service description"
        case .headerWithoutService: return "the recording header has no \"service\" (the URL that was recorded)"
        case .headerWithoutStartedAt: return "the recording header has no \"startedAt\" (epoch milliseconds)"
        case .unusableDescription(let error): return "the recorded service description is unusable: \(error)"
        case .descriptionSchema(let error): return error.description
        case .noFeatures(let sampled):
            return "holds no Esri feature JSON in its first \(sampled) messages (a CSV needs --columns track=…,time=…,x=…,y=…)"
        case .unknownTrackField(let name, let fields): return "--track-field '\(name)' is not one of its fields (\(fields.joined(separator: ", ")))"
        case .noTrackField(let fields):
            return "has plain features without a service description; name the track-id field with --track-field (fields: \(fields.joined(separator: ", ")))"
        case .unreadable(let path, let code): return "cannot read '\(path)': \(String(cString: strerror(code)))"
        case .isDirectory(let path): return "cannot read '\(path)': it is a directory"
        case .unreadableAgain(let path, let code): return "cannot read '\(path)' again: \(String(cString: strerror(code)))"
        }
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
