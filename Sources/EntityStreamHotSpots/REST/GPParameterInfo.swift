import EntityStreamCore
import EntityStreamModel

/// One parameter of a geoprocessing task description:
/// `{"name", "dataType", "displayName", "description", "direction", "defaultValue",
/// "parameterType", "category", "choiceList"}`.
public struct GPParameterInfo: Sendable, Hashable {
    /// `esriGPParameterDirectionInput` / `esriGPParameterDirectionOutput`.
    public enum Direction: String, Sendable, Hashable {
        case input = "esriGPParameterDirectionInput"
        case output = "esriGPParameterDirectionOutput"
    }

    public var name: String
    /// E.g. `GPString`, `GPFeatureRecordSetLayer`, `GPRasterDataLayer`, `GPLinearUnit`.
    public var dataType: String
    public var displayName: String
    public var description: String
    public var direction: Direction
    public var defaultValue: JSONValue?
    /// `esriGPParameterTypeRequired`, `esriGPParameterTypeOptional` or `esriGPParameterTypeDerived`.
    public var parameterType: String
    public var category: String
    public var choiceList: [String]

    public init(name: String, dataType: String, displayName: String? = nil, description: String = "",
                direction: Direction, defaultValue: JSONValue? = nil,
                parameterType: String = "esriGPParameterTypeRequired", category: String = "", choiceList: [String] = []) {
        self.name = name
        self.dataType = dataType
        self.displayName = displayName ?? name
        self.description = description
        self.direction = direction
        self.defaultValue = defaultValue
        self.parameterType = parameterType
        self.category = category
        self.choiceList = choiceList
    }

    /// `name`, `dataType` and `direction` are required; the rest default.
    public init(json: JSONValue) throws(GPRESTError) {
        let reader = try GPJSONReader(json, name: "parameter")
        name = try reader.string("name")
        dataType = try reader.string("dataType")
        let direction = try reader.string("direction")
        guard let parsed = Direction(rawValue: direction) else {
            throw .wrongType("direction", expected: "esriGPParameterDirectionInput or …Output", in: "parameter \(name)")
        }
        self.direction = parsed
        displayName = try reader.optionalString("displayName") ?? name
        description = try reader.optionalString("description") ?? ""
        defaultValue = reader.object["defaultValue"].flatMap { $0.isNull ? nil : $0 }
        parameterType = try reader.optionalString("parameterType") ?? "esriGPParameterTypeRequired"
        category = try reader.optionalString("category") ?? ""
        choiceList = []
        for (index, choice) in (try reader.optionalArray("choiceList") ?? []).enumerated() {
            guard let text = choice.stringValue else { throw .wrongType("choiceList[\(index)]", expected: "a string", in: "parameter \(name)") }
            choiceList.append(text)
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("name", .string(name)), ("dataType", .string(dataType)), ("displayName", .string(displayName)),
            ("description", .string(description)), ("direction", .string(direction.rawValue)),
            ("defaultValue", defaultValue ?? .null), ("parameterType", .string(parameterType)),
            ("category", .string(category)),
        ]
        if !choiceList.isEmpty { members.append(("choiceList", .array(choiceList.map { .string($0) }))) }
        return .object(JSONObject(members))
    }
}
