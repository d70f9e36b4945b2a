/// A recording that cannot be read, with the line when it is about one.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Hashable {
        /// The file's contents are wrong (``line`` says where, when known).
        case invalid
        /// The file could not be opened or read (the message names it and the system's reason).
        case unreadable
    }

    public var line: Int?
    public var message: String
    public var kind: Kind

    public init(line: Int?, _ message: String, kind: Kind = .invalid) {
        self.line = line
        self.message = message
        self.kind = kind
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
