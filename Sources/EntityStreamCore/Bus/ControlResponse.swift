import EntityStreamModel
/// The answer to a control command, carrying the command's `id`.
public struct ControlResponse: Sendable {
    public var id: JSONValue
    public var command: String
    public var ok: Bool
    public var result: JSONValue?
    public var error: String?

    public init(id: JSONValue, command: String, ok: Bool, result: JSONValue? = nil, error: String? = nil) {
        self.id = id
        self.command = command
        self.ok = ok
        self.result = result
        self.error = error
    }
}
