import EntityStreamTestSupport
import Foundation

/// The AIS recording (8,400 observations, 14 vessels) published once, by
/// `entitystream replay --publish`, into stream `AIS` of one nats-server
/// that the suites share for the test process's life (the first test that
/// asks starts it; the others await the same start; ``server()`` starts the
/// server alone).
///
/// The tests that use it only read the stream, each with a durable consumer
/// of its own name (or an ephemeral one), or publish what the stream already
/// holds (duplicates, which it does not store); none stops the server. So
/// each sees exactly the 8,400 messages, in the order they were published.
/// The server partitions `ais.service.track` into four (the README's
/// mapping), which consumers without `--partition` do not see. Tests that
/// need a stream of their own create it on ``server`` under another subject
/// prefix and name.
struct SharedAISStream: Sendable {
    let server: NATSServerProcess
    /// What the publishing run printed: its observation lines and its summary.
    let published: ProcessRunner.Result
    /// Its observation lines per track, in order (each line's attributes text): what a
    /// consumer of the whole stream must print.
    let tracks: [String: [String]]

    static let ais = SharedData.path(SharedData.ais)

    /// The stream, published the first time it is asked for.
    static func get() async throws -> SharedAISStream {
        try await Start.shared.stream()
    }

    /// The shared server alone, started the first time it is asked for (the recording is
    /// published only when a test asks for the stream): tests with streams of their own.
    static func server() async throws -> NATSServerProcess {
        try await Start.shared.server()
    }

    private actor Start {
        static let shared = Start()
        private var serverStart: Task<NATSServerProcess, any Error>?
        private var streamStart: Task<SharedAISStream, any Error>?

        func server() async throws -> NATSServerProcess {
            if let serverStart { return try await serverStart.value }
            let task = Task { try await NATSServerProcess.tiedToTestProcess(mapping: ("ais", 4)) }
            serverStart = task
            return try await task.value
        }

        func stream() async throws -> SharedAISStream {
            if let streamStart { return try await streamStart.value }
            let task = Task { try await SharedAISStream.publish(on: try await self.server()) }
            streamStart = task
            return try await task.value
        }
    }

    private static func publish(on server: NATSServerProcess) async throws -> SharedAISStream {
        // The duplicate window outlasts any run: a test publishing the recording again, however
        // late it starts, stores nothing.
        let published = try await CommandLineTool.run("entitystream", [
            "replay", ais, "--track-field", "MMSI", "--events", "observation", "--publish", "\(server.url)/ais",
            "--create-stream", "AIS", "--stream-duplicate-window", "86400"])
        return SharedAISStream(server: server, published: published, tracks: try EntityStreamJetStreamTests.tracks(published.standardOutput))
    }
}
