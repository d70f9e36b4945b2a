import Foundation
import EntityStreamTransport

/// Issue 2's benchmark: one client receiving 300-byte text messages from a
/// server in another process over loopback, into an async consumer.
enum TransportBenchmark {
    static let messageSize = 300

    /// Child process: serve `count` messages to the first client on a free
    /// port, print the port on stdout, exit when the client is done.
    static func runServer(count: Int) async throws {
        let finished = AsyncStream<Void>.makeStream()
        var configuration = ServerConfiguration()
        let payload = String(repeating: "x", count: messageSize - 8)
        configuration.webSocketResponder = { _ in
            .accept { socket in
                for index in 0..<count {
                    let prefix = String(index)
                    try? await socket.send(String(repeating: "0", count: 8 - prefix.count) + prefix + payload)
                }
                _ = await socket.closed()
                finished.continuation.yield()
            }
        }
        let server = try await TransportServer.start(configuration)
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        for await _ in finished.stream { break }
        await server.shutdown()
    }

    /// Parent: start the server process, receive everything, report rate.
    static func run(count: Int, executable: String) async throws -> BenchmarkResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["transport-server", "--count", String(count)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        guard let line = readLine(from: output.fileHandleForReading), let port = Int(line) else {
            throw BenchmarkError("transport server did not report its port")
        }
        let connection = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/bench")
        let clock = ContinuousClock()
        var received = 0
        var bytes = 0
        var batches = 0
        var start: ContinuousClock.Instant?
        for try await batch in connection.inbound {
            if start == nil { start = clock.now }
            received += batch.count
            bytes += batch.bytes.count
            batches += 1
            if received >= count { break }
        }
        let elapsed = clock.now - (start ?? clock.now)
        await connection.close()
        process.waitUntilExit()
        guard received == count, bytes == count * messageSize else {
            throw BenchmarkError("received \(received) messages (\(bytes) bytes), expected \(count)")
        }
        return BenchmarkResult(
            name: "transport: 300-byte messages, server process → client over loopback",
            count: count, seconds: elapsed.seconds, unit: "messages",
            extra: "batches \(batches), mean \(count / max(batches, 1)) messages per hand-off")
    }

    private static func readLine(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let data = handle.readData(ofLength: 1)
            guard let byte = data.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
