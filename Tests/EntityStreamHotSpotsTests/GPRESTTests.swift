import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots
import EntityStreamModel
import EntityStreamWhere

@Suite("GP REST: JSON shapes and the sample's query", .bounded(.io))
struct GPRESTTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// submitJob's answer reads and writes `{"jobId","jobStatus"}`.
    @Test func submitJobResponse() throws {
        let response = try GPSubmitJobResponse(parsing: Self.bytes(#"{"jobId":"jd1f2e3","jobStatus":"esriJobSubmitted"}"#))
        #expect(response == GPSubmitJobResponse(jobID: "jd1f2e3", status: .submitted))
        #expect(String(decoding: response.encoded, as: UTF8.self) == #"{"jobId":"jd1f2e3","jobStatus":"esriJobSubmitted"}"#)
        #expect(throws: GPRESTError.missingMember("jobStatus", in: "submitJob response")) {
            try GPSubmitJobResponse(parsing: Self.bytes(#"{"jobId":"j1"}"#))
        }
        #expect(throws: GPRESTError.wrongType("jobId", expected: "a string", in: "submitJob response")) {
            try GPSubmitJobResponse(parsing: Self.bytes(#"{"jobId":7,"jobStatus":"esriJobSubmitted"}"#))
        }
    }

    /// A server's job status (unknown members ignored, message types kept) reads fully and round-trips.
    @Test func jobStatus() throws {
        let text = #"""
        {"jobId":"j1","jobStatus":"esriJobSucceeded","progress":{"type":"default"},
         "results":{"Output_Features":{"paramUrl":"results/Output_Features"},"Hotspot_Raster":{"paramUrl":"results/Hotspot_Raster"}},
         "inputs":{"Query":{"paramUrl":"inputs/Query"}},
         "messages":[{"type":"esriJobMessageTypeInformative","description":"Submitted."},
                     {"type":"esriJobMessageTypeWarning","description":"Few neighbours."},
                     {"type":"esriJobMessageTypeSomethingNew","description":"x"}]}
        """#
        let info = try GPJobInfo(parsing: Self.bytes(text))
        #expect(info.jobID == "j1" && info.status == .succeeded)
        #expect(info.results.map(\.name) == ["Output_Features", "Hotspot_Raster"])
        #expect(info.results[0].paramURL == "results/Output_Features" && info.inputs == [GPParameterReference(name: "Query", paramURL: "inputs/Query")])
        #expect(info.messages.map(\.kind) == [.informative, .warning, GPJobMessage.Kind(rawValue: "esriJobMessageTypeSomethingNew")])
        #expect(try GPJobInfo(parsing: info.encoded) == info)
        let minimal = try GPJobInfo(parsing: Self.bytes(#"{"jobId":"j2","jobStatus":"esriJobExecuting"}"#))
        #expect(minimal.messages.isEmpty && minimal.results.isEmpty)
        #expect(throws: GPRESTError.unknownStatus("esriJobRunning")) {
            try GPJobInfo(parsing: Self.bytes(#"{"jobId":"j2","jobStatus":"esriJobRunning"}"#))
        }
        #expect(throws: GPRESTError.wrongType("messages", expected: "an array", in: "job status")) {
            try GPJobInfo(parsing: Self.bytes(#"{"jobId":"j2","jobStatus":"esriJobExecuting","messages":{}}"#))
        }
        #expect(throws: GPRESTError.missingMember("paramUrl", in: "results.Output_Features")) {
            try GPJobInfo(parsing: Self.bytes(#"{"jobId":"j2","jobStatus":"esriJobSucceeded","results":{"Output_Features":{}}}"#))
        }
    }

    /// A job's own status document lists its messages and `results/<name>` links.
    @Test func statusOfAJob() throws {
        var job = try GPJob.submit(id: "j7", at: 0).job
        _ = try job.start(at: 1)
        _ = try job.succeed(results: ["Output_Features"], at: 2)
        let info = GPJobInfo(job: job, inputs: ["Query"])
        #expect(info.status == .succeeded && info.results == [GPParameterReference(name: "Output_Features", paramURL: "results/Output_Features")])
        #expect(info.messages.count == 3 && info.inputs.first?.paramURL == "inputs/Query")
    }

    /// `{"error": …}` answers become a service error with code, message and details; non-JSON says so.
    @Test func errors() throws {
        let text = #"{"error":{"code":400,"message":"Unable to complete operation.","details":["Job not found"]}}"#
        let expected = ArcGISError(code: 400, message: "Unable to complete operation.", details: ["Job not found"])
        #expect(throws: GPRESTError.service(expected)) { try GPJobInfo(parsing: Self.bytes(text)) }
        #expect(String(decoding: expected.json(), as: UTF8.self) == text)
        #expect(GPRESTError.service(expected).description == "the server answered error 400: Unable to complete operation. (Job not found)")
        #expect(expected.description == "ArcGIS error 400: Unable to complete operation. (Job not found)")
        // One reader for every ArcGIS error answer: a code given as text, details that are not strings, no code at all.
        #expect(throws: GPRESTError.service(ArcGISError(code: 498, message: "Invalid Token", details: ["7"]))) {
            try GPJobInfo(parsing: Self.bytes(#"{"error":{"code":"498","message":"Invalid Token","details":[7]}}"#))
        }
        #expect(throws: GPRESTError.service(ArcGISError(code: nil, message: "busy"))) { try GPJobInfo(parsing: Self.bytes(#"{"error":{"message":"busy"}}"#)) }
        #expect(throws: GPRESTError.self) { try GPSubmitJobResponse(parsing: Self.bytes("<html>")) }
        #expect(throws: GPRESTError.wrongType("(top level)", expected: "an object", in: "job status")) {
            try GPJobInfo(parsing: Self.bytes("[1]"))
        }
    }

    /// A result parameter keeps its value as JSON; the value member is required.
    @Test func resultParameter() throws {
        let text = #"{"paramName":"Output_Features","dataType":"GPFeatureRecordSetLayer","value":{"geometryType":"esriGeometryPolygon","features":[]}}"#
        let result = try GPResultParameter(parsing: Self.bytes(text))
        #expect(result.name == "Output_Features" && result.dataType == "GPFeatureRecordSetLayer")
        #expect(result.value["geometryType"]?.stringValue == "esriGeometryPolygon")
        #expect(String(decoding: result.encoded, as: UTF8.self) == text)
        #expect(throws: GPRESTError.missingMember("value", in: "result parameter")) {
            try GPResultParameter(parsing: Self.bytes(#"{"paramName":"x","dataType":"GPString"}"#))
        }
    }

    /// The task description lists its parameters with direction and type, and round-trips.
    @Test func taskDescription() throws {
        let task = GPTaskDescription(name: "911 Calls Hotspot", parameters: [
            GPParameterInfo(name: "Query", dataType: "GPString", description: "Where clause selecting calls",
                            direction: .input, defaultValue: .string("(\"DATE\" > date '1998-01-01 00:00:00')")),
            GPParameterInfo(name: "Output_Features", dataType: "GPFeatureRecordSetLayer", direction: .output,
                            parameterType: "esriGPParameterTypeDerived"),
            GPParameterInfo(name: "Method", dataType: "GPString", direction: .input, parameterType: "esriGPParameterTypeOptional",
                            choiceList: ["fishnet", "collectEvents"]),
        ])
        let parsed = try GPTaskDescription(parsing: task.encoded)
        #expect(parsed == task)
        #expect(parsed.parameter(named: "Output_Features")?.direction == .output)
        #expect(parsed.executionType == "esriExecutionTypeAsynchronous")
        #expect(throws: GPRESTError.self) {
            try GPTaskDescription(parsing: Self.bytes(#"{"name":"t","parameters":[{"name":"a","dataType":"GPString","direction":"sideways"}]}"#))
        }
        #expect(throws: GPRESTError.missingMember("parameters", in: "task description")) {
            try GPTaskDescription(parsing: Self.bytes(#"{"name":"t"}"#))
        }
    }

    /// The sample's query: exactly its text for 1998-01-01…1998-05-31 (UTC), strict at both ends.
    @Test func sampleQuery() throws {
        let from = try Instant.parse("1998-01-01"), to = try Instant.parse("1998-05-31")
        let query = try GPDateRangeQuery.make(from: from, to: to)
        #expect(query == #"("DATE" > date '1998-01-01 00:00:00' AND "DATE" < date '1998-05-31 00:00:00')"#)
        // The project's where-clause engine reads it, strictly.
        let schema = Schema(fields: [Field(name: "DATE", type: .date)])
        let clause = try WhereClause(query, schema: schema)
        struct Row: AttributeRow {
            let date: Int64
            func value(at fieldIndex: Int) -> AttributeValue { fieldIndex == 0 ? AttributeValue.date(milliseconds: date) : .null }
        }
        #expect(!clause.matches(Row(date: from)) && clause.matches(Row(date: from + 1)))
        #expect(clause.matches(Row(date: to - 1)) && !clause.matches(Row(date: to)))
    }

    /// Milliseconds appear only when present; field names are quoted with inner quotes doubled; bad ranges are refused.
    @Test func queryDetails() throws {
        let from = try Instant.parse("2000-09-01T06:30:15.250Z"), to = try Instant.parse("2000-09-22T00:00:00Z")
        #expect(try GPDateRangeQuery.make(field: #"occ "date""#, from: from, to: to)
            == #"("occ ""date""" > date '2000-09-01 06:30:15.250' AND "occ ""date""" < date '2000-09-22 00:00:00')"#)
        #expect(throws: GPRESTError.self) { try GPDateRangeQuery.make(from: to, to: to) }
        #expect(throws: GPRESTError.self) { try GPDateRangeQuery.make(from: .min, to: 0) }
        #expect(throws: GPRESTError.self) { try GPDateRangeQuery.make(field: "", from: 0, to: 1) }
        #expect(try GPDateRangeQuery.make(from: -62_135_596_800_000, to: 0).contains("'0001-01-01 00:00:00'"))
    }
}
