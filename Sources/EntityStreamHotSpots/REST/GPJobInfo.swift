import EntityStreamCore
import EntityStreamModel

/// A named link in a job status: `"Output_Features": {"paramUrl": "results/Output_Features"}`.
public struct GPParameterReference: Sendable, Hashable {
    public var name: String
    public var paramURL: String

    public init(name: String, paramURL: String) {
        self.name = name
        self.paramURL = paramURL
    }
}

/// The answer to `GET <task>/jobs/<jobId>?f=json`:
/// `{"jobId", "jobStatus", "messages": [{"type", "description"}], "results": {name: {"paramUrl"}}, "inputs": {…}}`.
///
/// Reading requires `jobId` and `jobStatus`; `messages`, `results` and
/// `inputs` may be absent (empty) but must have the right types. Unknown
/// members are ignored. Results and inputs keep the server's order.
public struct GPJobInfo: Sendable, Hashable {
    public var jobID: String
    public var status: GPJobStatus
    public var messages: [GPJobMessage]
    public var results: [GPParameterReference]
    public var inputs: [GPParameterReference]

    public init(jobID: String, status: GPJobStatus, messages: [GPJobMessage] = [],
                results: [GPParameterReference] = [], inputs: [GPParameterReference] = []) {
        self.jobID = jobID
        self.status = status
        self.messages = messages
        self.results = results
        self.inputs = inputs
    }

    /// The status a server reports for `job`: its messages, and its results as
    /// `results/<name>` once succeeded; `inputs` as given (`inputs/<name>`).
    public init(job: GPJob, inputs: [String] = []) {
        self.init(jobID: job.id, status: job.status, messages: job.messages,
                  results: job.results.map { GPParameterReference(name: $0, paramURL: "results/\($0)") },
                  inputs: inputs.map { GPParameterReference(name: $0, paramURL: "inputs/\($0)") })
    }

    public init(json: JSONValue) throws(GPRESTError) {
        let reader = try GPJSONReader(json, name: "job status")
        jobID = try reader.string("jobId")
        status = try GPJobStatus(parsing: try reader.string("jobStatus"))
        messages = []
        for (index, item) in (try reader.optionalArray("messages") ?? []).enumerated() {
            let message = try GPJSONReader(item, name: "messages[\(index)]")
            messages.append(GPJobMessage(GPJobMessage.Kind(rawValue: try message.string("type")),
                                         try message.optionalString("description") ?? ""))
        }
        results = try GPJobInfo.references(reader.optionalObject("results"), name: "results")
        inputs = try GPJobInfo.references(reader.optionalObject("inputs"), name: "inputs")
    }

    public init(parsing bytes: [UInt8]) throws(GPRESTError) {
        let reader = try GPJSONReader.parse(bytes, name: "job status")
        try self.init(json: .object(reader.object))
    }

    private static func references(_ object: JSONObject?, name: String) throws(GPRESTError) -> [GPParameterReference] {
        guard let object else { return [] }
        var references: [GPParameterReference] = []
        for member in object.members {
            let reader = try GPJSONReader(member.value, name: "\(name).\(member.key)")
            references.append(GPParameterReference(name: member.key, paramURL: try reader.string("paramUrl")))
        }
        return references
    }

    public var json: JSONValue {
        func links(_ references: [GPParameterReference]) -> JSONValue {
            .object(JSONObject(references.map { ($0.name, .object(JSONObject([("paramUrl", .string($0.paramURL))]))) }))
        }
        return .object(JSONObject([
            ("jobId", .string(jobID)),
            ("jobStatus", .string(status.rawValue)),
            ("results", links(results)),
            ("inputs", links(inputs)),
            ("messages", .array(messages.map {
                .object(JSONObject([("type", .string($0.kind.rawValue)), ("description", .string($0.description))]))
            })),
        ]))
    }

    public var encoded: [UInt8] { json.encoded }
}
