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
            throw ControlCommandError(id: .null, command: nil, problem: .notJSON(error))
        }
        guard let object = value.objectValue else {
            throw ControlCommandError(id: .null, command: nil, problem: .notAnObject)
        }
        let id = object["id"] ?? .null
        guard id != .null else {
            throw ControlCommandError(id: .null, command: object["command"]?.stringValue, problem: .missingID)
        }
        switch id {
        case .string, .int, .double: break
        default: throw ControlCommandError(id: .null, command: object["command"]?.stringValue, problem: .invalidID)
        }
        guard let name = object["command"]?.stringValue else {
            throw ControlCommandError(id: id, command: nil, problem: .missingCommand(known: names))
        }
        guard let type = commands[name] else {
            throw ControlCommandError(id: id, command: name, problem: .unknownCommand(name, known: names))
        }
        return try type.init(members: CommandMembers(id: id, command: name, object: object, allowed: type.members))
    }
}
