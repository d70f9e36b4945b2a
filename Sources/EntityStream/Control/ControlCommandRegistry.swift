import EntityStreamCore
import EntityStreamModel

/// The control commands a session understands, by name: parses a stdin line
/// once into the right ``ControlCommand``.
public struct ControlCommandRegistry: Sendable {
    private let commands: [String: any ControlCommand.Type]
    /// Names in registration order (for error messages and help).
    public let names: [String]

    public init(_ commands: [any ControlCommand.Type]) {
        var byName: [String: any ControlCommand.Type] = [:]
        for command in commands { byName[command.name] = command }
        self.commands = byName
        names = commands.map { $0.name }
    }

    /// The stream library's own commands: status, the store's entities, purge,
    /// the filter, and cancelling an analysis. A program adds the analyses it
    /// offers (`entitystream` registers its own in `Program.analyses`).
    public static let streamControl: [any ControlCommand.Type] = [
        StatusCommand.self, QueryEntitiesCommand.self, PurgeAllCommand.self, SetFilterCommand.self, CancelCommand.self,
    ]

    /// Parses one line. Throws ``ControlCommandError`` (with the `id` when one
    /// could be read) for anything that is not a valid command.
    public func parse(line: [UInt8]) throws(ControlCommandError) -> any ControlCommand {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch {
            throw ControlCommandError(id: .null, command: nil, message: "not a JSON command: \(error)")
        }
        guard let object = value.objectValue else {
            throw ControlCommandError(id: .null, command: nil, message: "a command must be a JSON object with \"id\" and \"command\"")
        }
        let id = object["id"] ?? .null
        guard id != .null else {
            throw ControlCommandError(id: .null, command: object["command"]?.stringValue, message: "the command has no \"id\"")
        }
        switch id {
        case .string, .int, .double: break
        default: throw ControlCommandError(id: .null, command: object["command"]?.stringValue, message: "\"id\" must be a string or a number")
        }
        guard let name = object["command"]?.stringValue else {
            throw ControlCommandError(id: id, command: nil, message: "missing \"command\" (one of \(names.joined(separator: ", ")))")
        }
        guard let type = commands[name] else {
            throw ControlCommandError(id: id, command: name, message: "unknown command '\(name)' (expected \(names.joined(separator: ", ")))")
        }
        return try type.init(members: CommandMembers(id: id, command: name, object: object, allowed: type.members))
    }
}
