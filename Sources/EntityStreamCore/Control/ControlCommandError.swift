import EntityStreamModel
/// A control line that is not a valid command; answered with an error response.
public struct ControlCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    public var id: JSONValue
    public var command: String?
    public var message: String

    public init(id: JSONValue, command: String?, message: String) {
        self.id = id
        self.command = command
        self.message = message
    }

    public var description: String { message }
}
