/// A recording that cannot be read, with the line when it is about one.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int?
    public var message: String

    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
