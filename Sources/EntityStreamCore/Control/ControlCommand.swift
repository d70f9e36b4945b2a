/// A control command read from standard input while a stream runs: one
/// JSON object per line, with an `id` the response echoes.
///
/// ```json
/// {"id":1,"command":"query-entities","where":"speed > 20","geometry":"-112,40.5,-111.8,40.7","trackIds":["TRUCK 3"]}
/// {"id":2,"command":"purge-all"}
/// {"id":3,"command":"set-filter","filter":{"where":"speed > 0"}}
/// {"id":4,"command":"status"}
/// ```
///
/// ``parse(line:)`` throws ``ControlCommandError`` (carrying the `id` when
/// one could be read) for anything that is not such a command.
public enum ControlCommand: Sendable {
    case queryEntities(id: JSONValue, whereClause: String?, envelope: Envelope?, trackIDs: [AttributeValue]?, includeObservations: Int)
    case purgeAll(id: JSONValue)
    case setFilter(id: JSONValue, filter: StreamFilter)
    case status(id: JSONValue)

    public static let names = ["query-entities", "purge-all", "set-filter", "status"]

    public var id: JSONValue {
        switch self {
        case .queryEntities(let id, _, _, _, _), .purgeAll(let id), .setFilter(let id, _), .status(let id): return id
        }
    }

    public var name: String {
        switch self {
        case .queryEntities: return "query-entities"
        case .purgeAll: return "purge-all"
        case .setFilter: return "set-filter"
        case .status: return "status"
        }
    }

    public static func parse(line: [UInt8]) throws(ControlCommandError) -> ControlCommand {
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
        guard let name = object["command"]?.stringValue else {
            throw ControlCommandError(id: id, command: nil, message: "missing \"command\" (one of \(names.joined(separator: ", ")))")
        }
        let allowed: Set<String>
        let command: ControlCommand
        switch name {
        case "query-entities":
            allowed = ["id", "command", "where", "geometry", "trackIds", "observations"]
            var whereClause: String?
            if let text = object["where"], !text.isNull {
                guard let string = text.stringValue else { throw ControlCommandError(id: id, command: name, message: "\"where\" must be a string") }
                whereClause = string
            }
            var envelope: Envelope?
            if let geometry = object["geometry"], !geometry.isNull {
                do { envelope = try StreamFilter.parseGeometry(geometry) } catch {
                    throw ControlCommandError(id: id, command: name, message: error.description)
                }
            }
            var trackIDs: [AttributeValue]?
            if let tracks = object["trackIds"], !tracks.isNull {
                guard let array = tracks.arrayValue else { throw ControlCommandError(id: id, command: name, message: "\"trackIds\" must be an array") }
                trackIDs = []
                for (index, element) in array.enumerated() {
                    guard let trackID = trackIDValue(element) else {
                        throw ControlCommandError(id: id, command: name, message: "trackIds[\(index)] must be a string or a number, not \(element)")
                    }
                    trackIDs?.append(trackID)
                }
            }
            var history = 0
            if let count = object["observations"], !count.isNull {
                guard let number = count.intValue, number >= -1 else {
                    throw ControlCommandError(id: id, command: name, message: "\"observations\" must be a count (-1 for all)")
                }
                history = Int(number)
            }
            command = .queryEntities(id: id, whereClause: whereClause, envelope: envelope, trackIDs: trackIDs, includeObservations: history)
        case "purge-all":
            allowed = ["id", "command"]
            command = .purgeAll(id: id)
        case "set-filter":
            allowed = ["id", "command", "filter"]
            guard let filterValue = object["filter"] else {
                throw ControlCommandError(id: id, command: name, message: "missing \"filter\" (an object with where, geometry, outFields; or null)")
            }
            do { command = .setFilter(id: id, filter: try StreamFilter.parse(json: filterValue)) } catch {
                throw ControlCommandError(id: id, command: name, message: error.description)
            }
        case "status":
            allowed = ["id", "command"]
            command = .status(id: id)
        default:
            throw ControlCommandError(id: id, command: name, message: "unknown command '\(name)' (expected \(names.joined(separator: ", ")))")
        }
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw ControlCommandError(id: id, command: name, message: "unknown member '\(unknown)' for \(name)")
        }
        return command
    }
}

/// A track id given in JSON, as the attribute value it is stored under
/// (whole numbers as integers, whatever their JSON spelling); nil for
/// anything that cannot be a track id.
private func trackIDValue(_ value: JSONValue) -> AttributeValue? {
    switch value {
    case .string(let text): return .string(text)
    case .int(let number): return .int(number)
    case .double(let number): return number == number.rounded() && abs(number) < 9e15 ? .int(Int64(number)) : .double(number)
    case .bool(let flag): return .bool(flag)
    default: return nil
    }
}

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
