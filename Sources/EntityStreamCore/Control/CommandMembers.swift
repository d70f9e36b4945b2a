import EntityStreamModel
/// The members of one control command, read with the checks every command
/// shares: an unknown member is refused by name, and each typed accessor
/// throws a ``ControlCommandError`` naming the member and what it must be.
///
/// Absent and JSON `null` members read as nil. A value type.
public struct CommandMembers: Sendable {
    public let id: JSONValue
    public let command: String
    public let object: JSONObject

    /// Checks that `object` has only `allowed` members (besides `id` and `command`).
    public init(id: JSONValue, command: String, object: JSONObject, allowed: Set<String>) throws(ControlCommandError) {
        self.id = id
        self.command = command
        self.object = object
        if let unknown = object.keys.first(where: { $0 != "id" && $0 != "command" && !allowed.contains($0) }) {
            throw ControlCommandError(id: id, command: command, problem: .unknownMember(unknown, command: command, allowed: allowed.sorted()))
        }
    }

    /// An error about this command.
    public func error(_ problem: ControlCommandError.Problem) -> ControlCommandError {
        ControlCommandError(id: id, command: command, problem: problem)
    }

    /// An error about this command for a rule particular to it, as its own error's case.
    public func error(_ rule: some CommandRuleError) -> ControlCommandError {
        error(.command(CommandRule(rule)))
    }

    /// The member's value, nil when absent or null.
    public func value(_ name: String) -> JSONValue? {
        guard let value = object[name], !value.isNull else { return nil }
        return value
    }

    public func string(_ name: String) throws(ControlCommandError) -> String? {
        guard let value = value(name) else { return nil }
        guard let text = value.stringValue else { throw error(.notAString(member: name)) }
        return text
    }

    public func bool(_ name: String) throws(ControlCommandError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard let flag = value.boolValue else { throw error(.notABool(member: name)) }
        return flag
    }

    /// A whole number within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(ControlCommandError) -> Int? {
        guard let value = value(name) else { return nil }
        let number: Int64?
        switch value {
        case .int(let whole): number = whole
        case .double(let real) where real == real.rounded() && abs(real) < 9e15: number = Int64(real)
        default: number = nil
        }
        guard let number, number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
            throw error(.notAWholeNumber(member: name, range: range))
        }
        return Int(number)
    }

    /// A number within `range` (finite).
    public func number(_ name: String, in range: ClosedRange<Double>) throws(ControlCommandError) -> Double? {
        guard let value = value(name) else { return nil }
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            throw error(.notANumber(member: name, range: range))
        }
        return number
    }

    /// A list of names: a comma-separated string or an array of strings.
    public func names(_ name: String) throws(ControlCommandError) -> [String]? {
        guard let value = value(name) else { return nil }
        var names: [String] = []
        if let text = value.stringValue {
            names = text.split(separator: ",").map { String($0).trimmingSpaces }
        } else if let array = value.arrayValue {
            for (index, element) in array.enumerated() {
                guard let text = element.stringValue else { throw error(.nameNotAString(member: name, index: index)) }
                names.append(text.trimmingSpaces)
            }
        } else {
            throw error(.notANameList(member: name))
        }
        names.removeAll { $0.isEmpty }
        guard !names.isEmpty else { throw error(.noNames(member: name)) }
        return names
    }

    /// An envelope: `"xmin,ymin,xmax,ymax[,wkid]"` or an Esri envelope object.
    public func envelope(_ name: String) throws(ControlCommandError) -> Envelope? {
        guard let value = value(name) else { return nil }
        do throws(FilterError) { return try StreamFilter.parseGeometry(value) } catch { throw self.error(.envelope(member: name, error)) }
    }

    /// Track ids: an array of strings or numbers, as the values they are stored under.
    public func trackIDs(_ name: String) throws(ControlCommandError) -> Set<AttributeValue>? {
        guard let value = value(name) else { return nil }
        guard let array = value.arrayValue else { throw error(.notAnArray(member: name)) }
        var ids = Set<AttributeValue>()
        for (index, element) in array.enumerated() {
            guard let trackID = Self.trackIDValue(element) else {
                throw error(.notATrackID(member: name, index: index, element))
            }
            ids.insert(trackID)
        }
        return ids
    }

    /// A time extent: `{"start":…,"end":…}`, `[start, end]` or `"start,end"`;
    /// each end ISO-8601 or epoch milliseconds, null for open.
    public func timeExtent(_ name: String) throws(ControlCommandError) -> TimeExtent? {
        guard let value = value(name) else { return nil }
        func bound(_ value: JSONValue?, _ label: String) throws(ControlCommandError) -> Int64? {
            guard let value, !value.isNull else { return nil }
            do throws(InstantError) {
                switch value {
                case .string(let text): return try Instant.parse(text)
                case .int(let milliseconds): return try Instant.checked(milliseconds, text: String(milliseconds))
                case .double(let milliseconds): return try Instant.milliseconds(milliseconds, text: "\(milliseconds)")
                default: throw .notAnInstantValue("\(value)")
                }
            } catch {
                throw self.error(.timeBound(member: name, bound: label, error))
            }
        }
        let start: Int64?, end: Int64?
        switch value {
        case .object(let object):
            if let unknown = object.keys.first(where: { $0 != "start" && $0 != "end" }) {
                throw error(.timeExtentMember(member: name, unknown: unknown))
            }
            start = try bound(object["start"], "start")
            end = try bound(object["end"], "end")
        case .array(let array):
            guard array.count == 2 else { throw error(.timeExtentArray(member: name)) }
            start = try bound(array[0], "start")
            end = try bound(array[1], "end")
        case .string(let text):
            do throws(TimeExtentError) { return try TimeExtent.parse(text) } catch { throw self.error(.timeExtent(member: name, error)) }
        default:
            throw error(.timeExtentShape(member: name))
        }
        do throws(TimeExtentError) { return try TimeExtent(start: start, end: end) } catch { throw self.error(.timeExtent(member: name, error)) }
    }

    /// A track id given in JSON, as the attribute value it is stored under
    /// (whole numbers as integers, whatever their JSON spelling).
    static func trackIDValue(_ value: JSONValue) -> AttributeValue? {
        switch value {
        case .string(let text): return .string(text)
        case .int(let number): return .int(number)
        case .double(let number): return number == number.rounded() && abs(number) < 9e15 ? .int(Int64(number)) : .double(number)
        case .bool(let flag): return .bool(flag)
        default: return nil
        }
    }
}
