import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamLocking
import StreamSimulator
import Testing

/// Collects the simulator's fault announcements.
private final class Announcements: Sendable {
    let lines = LockedState<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func log(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A looping recording service named Trucks with the given faults, a message every millisecond: the
/// faults act within tens of messages (or 0.3 s), and a burst (as fast as the socket takes) kept both
/// ends busy decoding tens of thousands of messages while each test waited.
private func faultySimulator(_ configure: @escaping (inout FaultPlan) -> Void, announcements: Announcements) async throws -> SimulatorServer {
    let path = try writeFeatureLines(count: 50)
    return try await startSimulator([ServiceSpecification(name: "Trucks", source: .recording(path: path))]) {
        $0.pacing.intervalMilliseconds = 1
        $0.pacing.loop = true
        $0.trackIDField = "name"
        configure(&$0.faults)
        $0.log = { announcements.log($0) }
    }
}

private func connect(_ server: SimulatorServer, sink: RecordingSink, options: StreamConnectionOptions = quickOptions()) -> StreamServiceConnection {
    StreamServiceConnection(serviceURL: server.serviceURL("Trucks"), options: options, sink: sink)
}

@Suite("Simulator faults", .bounded(.io))
struct SimulatorFaultTests {
    /// --drop-after N drops each connection abruptly after N messages; the client reconnects and data continues.
    @Test func dropAfterMakesTheClientReconnect() async throws {
        let announcements = Announcements()
        let server = try await faultySimulator({ $0.dropAfter = 20 }, announcements: announcements)
        let sink = RecordingSink()
        let connection = connect(server, sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.statuses.filter { $0.status == .connected }.count >= 2 && $0.observations.count >= 30 }
        let reconnect = try #require(snapshot.statuses.first { $0.status == .connecting && $0.attempt == 1 })
        #expect(reconnect.error?.contains("connection lost") == true)
        #expect(snapshot.observations.prefix(20).count == 20)
        #expect(announcements.all.contains { $0.contains("dropping subscriber") && $0.contains("after 20 messages") })
        await connection.disconnect()
        await server.shutdown()
    }

    /// --close-code 4400 closes at once; the client does not retry and fails with the code and reason.
    @Test func closeCodeFailsTheClient() async throws {
        let announcements = Announcements()
        let server = try await faultySimulator({ $0.closeCode = (4400, "Invalid filter") }, announcements: announcements)
        let sink = RecordingSink()
        let connection = connect(server, sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.statuses.last?.status == .failed }
        #expect(snapshot.statuses.last?.error == "server closed the connection (4400: Invalid filter)")
        #expect(announcements.all.filter { $0.contains("with 4400") }.count == 1)
        await server.shutdown()
    }

    /// --close-code 1011 with --drop-after N closes politely after N messages; the client reconnects.
    @Test func closeCodeAfterMessagesReconnects() async throws {
        let announcements = Announcements()
        let server = try await faultySimulator({ $0.dropAfter = 5; $0.closeCode = (1011, "restarting") }, announcements: announcements)
        let sink = RecordingSink()
        let connection = connect(server, sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.statuses.filter { $0.status == .connected }.count >= 2 }
        #expect(snapshot.statuses.contains { $0.status == .connecting && $0.error == "server closed the connection (1011: restarting)" })
        await connection.disconnect()
        await server.shutdown()
    }

    /// --malformed-every N corrupts messages; the client counts and reports each, and keeps the good ones.
    @Test func malformedMessagesAreCounted() async throws {
        let announcements = Announcements()
        let server = try await faultySimulator({ $0.malformedEvery = 4 }, announcements: announcements)
        let sink = RecordingSink()
        let connection = connect(server, sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.errors.count >= 5 && $0.observations.count >= 15 }
        #expect(snapshot.errors.allSatisfy { $0.source == .message && $0.message.contains("at byte") })
        #expect(snapshot.errors.prefix(5).map(\.count) == [1, 2, 3, 4, 5])
        await connection.disconnect()
        #expect(announcements.all.contains { $0.contains("malformed message (#4)") })
        await server.shutdown()
    }

    /// --stall MS pauses the stream without breaking the connection: no reconnect, data resumes.
    @Test func stallDoesNotBreakTheConnection() async throws {
        let announcements = Announcements()
        let server = try await faultySimulator({ $0.stallMilliseconds = 300; $0.stallAfter = 10 }, announcements: announcements)
        let sink = RecordingSink()
        let connection = connect(server, sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.observations.count >= 40 }
        #expect(snapshot.statuses.filter { $0.status == .connected }.count == 1)
        #expect(announcements.all.contains { $0.contains("stalling subscriber") && $0.contains("300 ms") })
        await connection.disconnect()
        await server.shutdown()
    }

    /// --reject-first N refuses N upgrades with 503; the client retries and connects.
    @Test func rejectFirstIsRetried() async throws {
        let announcements = Announcements()
        let server = try await faultySimulator({ $0.rejectFirst = 2 }, announcements: announcements)
        let sink = RecordingSink()
        let connection = connect(server, sink: sink)
        #expect(await connection.connect() == .connected)
        // The statuses reach the sink after connect() returns: await the last one.
        let snapshot = await sink.wait { $0.statuses.contains { $0.status == .connected } }
        #expect(snapshot.statuses.map { "\($0.status.rawValue) \($0.attempt)" } == ["connecting 0", "connecting 1", "connecting 2", "connected 2"])
        #expect(snapshot.statuses[1].error == "WebSocket upgrade rejected with HTTP 503")
        #expect(announcements.all.filter { $0.contains("refusing upgrade") }.count == 2)
        await connection.disconnect()
        await server.shutdown()
    }

    /// --expire-token-after S closes with 4401 and hands out a new token; the client fetches it and reconnects.
    @Test func expiredTokenIsRefreshed() async throws {
        let announcements = Announcements()
        let server = try await faultySimulator({ $0.expireTokenAfterSeconds = 0.3 }, announcements: announcements)
        let sink = RecordingSink()
        let connection = connect(server, sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.statuses.filter { $0.status == .connected }.count >= 2 }
        // The socket closes with 4401 whether it was open at expiry or opened with the stale token;
        // the client refetches the description and connects again instead of failing.
        let expiry = snapshot.statuses.firstIndex { $0.error?.hasPrefix("server closed the connection (4401: ") == true }
        #expect(expiry != nil)
        #expect(snapshot.statuses[(expiry ?? snapshot.statuses.count)...].contains { $0.status == .connected })
        #expect(!snapshot.statuses.contains { $0.status == .failed })
        #expect(announcements.all.contains { $0.contains("socket token expired") })
        await connection.disconnect()
        await server.shutdown()
    }
}
