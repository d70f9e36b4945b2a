import EntityStreamCore
import EntityStreamModel

/// The answer to `POST <task>/submitJob`: `{"jobId": "j…", "jobStatus": "esriJobSubmitted"}`.
public struct GPSubmitJobResponse: Sendable, Hashable {
    public var jobID: String
    public var status: GPJobStatus

    public init(jobID: String, status: GPJobStatus) {
        self.jobID = jobID
        self.status = status
    }

    /// Reads the response; an `{"error": …}` answer throws ``GPRESTError/service(_:)``.
    public init(json: JSONValue) throws(GPRESTError) {
        let reader = try GPJSONReader(json, name: "submitJob response")
        jobID = try reader.string("jobId")
        status = try GPJobStatus(parsing: try reader.string("jobStatus"))
    }

    public init(parsing bytes: [UInt8]) throws(GPRESTError) {
        let reader = try GPJSONReader.parse(bytes, name: "submitJob response")
        try self.init(json: .object(reader.object))
    }

    public var json: JSONValue {
        .object(JSONObject([("jobId", .string(jobID)), ("jobStatus", .string(status.rawValue))]))
    }

    public var encoded: [UInt8] { json.encoded }
}
