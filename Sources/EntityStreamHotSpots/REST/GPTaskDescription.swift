import EntityStreamCore
import EntityStreamModel

/// The answer to `GET <service>/GPServer/<task>?f=json`: the task and its parameters.
public struct GPTaskDescription: Sendable, Hashable {
    public var name: String
    public var displayName: String
    public var description: String
    public var category: String
    public var helpURL: String
    /// `esriExecutionTypeAsynchronous` (submitJob) or `esriExecutionTypeSynchronous` (execute).
    public var executionType: String
    public var parameters: [GPParameterInfo]

    public init(name: String, displayName: String? = nil, description: String = "", category: String = "",
                helpURL: String = "", executionType: String = "esriExecutionTypeAsynchronous",
                parameters: [GPParameterInfo]) {
        self.name = name
        self.displayName = displayName ?? name
        self.description = description
        self.category = category
        self.helpURL = helpURL
        self.executionType = executionType
        self.parameters = parameters
    }

    /// `name` and `parameters` are required.
    public init(json: JSONValue) throws(GPRESTError) {
        let reader = try GPJSONReader(json, name: "task description")
        name = try reader.string("name")
        displayName = try reader.optionalString("displayName") ?? name
        description = try reader.optionalString("description") ?? ""
        category = try reader.optionalString("category") ?? ""
        helpURL = try reader.optionalString("helpUrl") ?? ""
        executionType = try reader.optionalString("executionType") ?? "esriExecutionTypeAsynchronous"
        guard let list = try reader.optionalArray("parameters") else { throw .missingMember("parameters", in: "task description") }
        parameters = []
        for item in list { parameters.append(try GPParameterInfo(json: item)) }
    }

    public init(parsing bytes: [UInt8]) throws(GPRESTError) {
        let reader = try GPJSONReader.parse(bytes, name: "task description")
        try self.init(json: .object(reader.object))
    }

    /// The parameter named `name` (exact match), if any.
    public func parameter(named name: String) -> GPParameterInfo? { parameters.first { $0.name == name } }

    public var json: JSONValue {
        .object(JSONObject([
            ("name", .string(name)), ("displayName", .string(displayName)), ("description", .string(description)),
            ("category", .string(category)), ("helpUrl", .string(helpURL)), ("executionType", .string(executionType)),
            ("parameters", .array(parameters.map(\.json))),
        ]))
    }

    public var encoded: [UInt8] { json.encoded }
}
