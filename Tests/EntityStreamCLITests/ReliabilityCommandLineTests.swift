import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing

/// A pipe whose read end the test keeps; the write end goes to the child (and is closed here once spawned).
private func pipeEnds() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return (ends[0], ends[1])
}

/// Reads `descriptor` until a line contains `marker`; returns that line.
private func readLine(containing marker: String, from descriptor: Int32) -> String? {
    var text = ""
    while true {
        let chunk = ChildProcess.read(descriptor)
        if chunk.isEmpty { return nil }
        text += String(decoding: chunk, as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
    }
}

@Suite("Both programs under faults: closed stderr, early signals", .bounded(.io))
struct ReliabilityCommandLineTests {
    /// A simulator whose stderr reader went away (`2>&1 | grep -m1 port`) keeps serving: its next
    /// log line — a fault announcement, then "shutting down" — is a failed write, not a crash (it
    /// died with SIGILL, status 132, in `FileHandle.write`). A client still gets its data, and
    /// SIGTERM still stops it with status 0.
    @Test func simulatorOutlivesAClosedStderr() async throws {
        let stderr = try pipeEnds()
        let simulator = try ChildProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "5", "--port", "0", "--drop-after", "1"],
                                         input: .null, output: .null, error: .descriptor(stderr.write))
        close(stderr.write)
        let announced = readLine(containing: "listening on", from: stderr.read)
        close(stderr.read)
        let port = try #require(announced?.split(separator: " ").last.flatMap { Int($0) })
        // Every connection is dropped after one message: each drop is announced on the closed stderr.
        let client = try await CommandLineTool.run("entitystream", ["connect", "http://127.0.0.1:\(port)/arcgis/rest/services/SandyVehicles/StreamServer",
                                                              "--limit", "2", "--events", "observation"])
        #expect(client.status == 0, "\(client.standardError)")
        #expect(client.standardOutput.split(separator: "\n").count == 2)
        #expect(simulator.isRunning, "the simulator died on a closed stderr")
        simulator.signal(SIGTERM)
        #expect(simulator.wait() == 0)
    }

    /// `entitystream` with a closed stderr: a usage error still exits 2 and a runtime failure 1 (a
    /// write to the closed pipe used to end it with SIGPIPE, status 141).
    @Test func clientOutlivesAClosedStderr() throws {
        for (arguments, status) in [(["replay", "--speed", "fast", "x.json"], Int32(2)), (["replay", "/no/such/file.json"], 1)] {
            let stderr = try pipeEnds()
            close(stderr.read)
            let client = try ChildProcess(CommandLineTool.path("entitystream"), arguments, input: .null, output: .null, error: .descriptor(stderr.write))
            close(stderr.write)
            #expect(client.wait() == status, "\(arguments)")
        }
    }

    /// SIGTERM or SIGINT before a command watches signals — here while `replay -` still reads its
    /// file from stdin — ends it with the documented status 0 (it was 143 or 130: the system's
    /// default action).
    @Test(arguments: [SIGTERM, SIGINT])
    func signalBeforeWatchingExitsZero(signal: Int32) throws {
        let client = try ChildProcess(CommandLineTool.path("entitystream"), ["replay", "-", "--track-field", "name"], output: .null, error: .null)
        #expect(client.waitUntilCatching(signal))
        client.signal(signal)
        #expect(client.wait() == 0)
    }

    /// The same for the simulator before it serves: blocked opening a --layer that is a FIFO no one
    /// writes to, a signal ends it with status 0.
    @Test func simulatorSignalBeforeServingExitsZero() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("layer-\(UUID().uuidString).csv").path
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let simulator = try ChildProcess(CommandLineTool.path("stream-simulator"), ["--layer", "L=\(fifo)", "--port", "0"],
                                         input: .null, output: .null, error: .null)
        #expect(simulator.waitUntilCatching(SIGTERM))
        simulator.signal(SIGTERM)
        #expect(simulator.wait() == 0)
    }

    /// `--duration` with a stdout nobody reads (a pipe that stays full) ends anyway: after the
    /// duration the events still queued get a bounded time to be written, then are dropped, and
    /// stderr says how many (the end used to wait for the reader: 10 s became 30 s with a slow one,
    /// and for ever with a stalled one). The exit status is 0, as for any --duration.
    @Test func durationEndsWithAStalledReader() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loop-\(UUID().uuidString).json").path
        try (0..<50).map { #"{"geometry":{"x":-111.9,"y":40.6},"attributes":{"name":"T\#($0 % 5)","note":"\#(String(repeating: "x", count: 200))"}}"# }
            .joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // stdout is a pipe the test never reads: once its buffer is full every write blocks.
        let client = try ChildProcess(CommandLineTool.path("entitystream"), ["replay", path, "--track-field", "name", "--loop", "--duration", "1"],
                                      input: .null)
        let status = client.wait()
        let stderr = String(decoding: ChildProcess.read(client.standardError), as: UTF8.self)
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("--duration elapsed: stdout did not take the last events within 2.0 s"), "\(stderr)")
        #expect(stderr.contains("queued events were not written"), "\(stderr)")
    }

    /// Every streaming command's help lists every event kind --events takes (`analysis` was missing).
    @Test(arguments: ["connect", "replay", "demo"])
    func helpListsEveryEventKind(command: String) async throws {
        let help = try await CommandLineTool.run("entitystream", [command, "--help"])
        #expect(help.status == 0)
        let eventsLines = help.standardOutput.split(separator: "\n").drop { !$0.contains("--events LIST") }.prefix(4).joined(separator: " ")
        for kind in EventKind.allCases {
            #expect(eventsLines.contains(kind.rawValue), "\(command) --help: \(kind.rawValue) missing from: \(eventsLines)")
        }
    }

    /// A password in a URL's user information never reaches stderr: the "invalid URL" error
    /// masks it (it printed `http://user:pw@…` as given).
    @Test func urlPasswordIsNotPrinted() async throws {
        let result = try await CommandLineTool.run("entitystream", ["connect", "http://ann:s3cret-pw@127.0.0.1:1/arcgis/rest/services/X/StreamServer",
                                                              "--reconnect-attempts", "0"])
        #expect(result.status != 0)
        #expect(!result.standardError.contains("s3cret-pw") && !result.standardOutput.contains("s3cret-pw"), "\(result.standardError)")
        #expect(result.standardError.contains("ann:***@127.0.0.1:1"), "\(result.standardError)")
    }
}
