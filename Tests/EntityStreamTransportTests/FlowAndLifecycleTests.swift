import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamTransport

/// How many of this process's threads named `name` (as /proc keeps it, 15 bytes) have not begun to exit.
/// A thread that was joined can still be listed in /proc/self/task for a moment, its kernel task finishing
/// its exit after waking the joiner (on a loaded machine long enough to be counted); its flags then
/// carry PF_EXITING (0x4), set before the wake-up.
private func runningThreads(named name: String) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
              comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
              let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        // After "(comm)": state, ppid, pgrp, session, tty, tpgid, flags.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 6, let flags = UInt64(fields[6]) else { return true }
        return flags & 0x4 == 0
    }.count
}

@Suite("Back-pressure, keepalive and shutdown", .bounded(.io))
struct FlowAndLifecycleTests {
    /// A consumer slower than the server still receives all 10,000 messages in
    /// order, while the client's unconsumed buffer and the server's queue stay
    /// bounded (reading pauses instead of buffering everything). 2.9 MB is 11
    /// times the client's buffer limit: had reading not paused, the buffer
    /// would have run megabytes past it.
    @Test func slowConsumerReceivesEverythingWithBoundedMemory() async throws {
        let total = 10_000
        let padding = String(repeating: "p", count: 280)
        let serverQueueLimit = 256 * 1024
        let serverQueuePeak = AsyncStreamBox<Int>()
        let server = try await startEchoServer { configuration in
            configuration.outboundQueueLimit = serverQueueLimit
            configuration.slowClientPolicy = .waitForSpace
            configuration.webSocketResponder = { _ in
                .accept { socket in
                    var peak = 0
                    for index in 0..<total {
                        try? await socket.send("\(index) \(padding)")
                        peak = max(peak, socket.queuedBytes)
                    }
                    serverQueuePeak.yield(peak)
                }
            }
        }
        var configuration = WebSocketConfiguration()
        configuration.receiveBufferLimit = 256 * 1024
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/feed", configuration: configuration)
        var expected = 0
        var inOrder = true
        var bufferedPeak = 0
        var checksum: UInt64 = 0
        var iterator = connection.inbound.makeAsyncIterator()
        while expected < total {
            bufferedPeak = max(bufferedPeak, connection.bufferedInboundBytes)
            guard let batch = try await iterator.next() else { break }
            for index in batch.indices {
                let message = batch[index]
                // Slow, CPU-bound work per message: hash the bytes many times.
                for _ in 0..<2 { for byte in message { checksum = checksum &* 31 &+ UInt64(byte) } }
                let number = Int(String(decoding: message.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self))
                if number != expected { inOrder = false }
                expected += 1
            }
        }
        #expect(expected == total)
        #expect(inOrder)
        #expect(checksum != 0)
        // Reading paused: the buffer reached its limit but never ran far past it.
        #expect(bufferedPeak >= configuration.receiveBufferLimit)
        #expect(bufferedPeak < configuration.receiveBufferLimit + 512 * 1024)
        let peak = await serverQueuePeak.next() ?? .max
        #expect(peak <= serverQueueLimit + 64 * 1024)
        // (The process's RSS is not asserted: tests run in parallel in one process.
        // The two peaks above are what bound memory: ~2.9 MB of messages never sat in a buffer.)
        await connection.close()
        await server.shutdown()
    }

    /// `trySend` queues without waiting while the client's queue has room and
    /// answers false once it is full (nothing queued: the connection is still
    /// open, and the async send then waits for room and delivers), and once
    /// the connection is closing. Every message it accepted reaches the
    /// client, in order.
    @Test func trySendQueuesOnlyWhenThereIsRoom() async throws {
        let outcome = AsyncStreamBox<(accepted: Int, refusedWhenClosing: Bool)>()
        let server = try await startEchoServer { configuration in
            configuration.outboundQueueLimit = 64 * 1024
            configuration.slowClientPolicy = .waitForSpace
            configuration.webSocketResponder = { _ in
                .accept { socket in
                    // The client does not consume yet: once its buffers and the sockets' are full, so is the queue.
                    var accepted = 0
                    while socket.trySend(bytes: Array("\(accepted) \(String(repeating: "x", count: 1000))".utf8)[...]) { accepted += 1 }
                    try? await socket.send("last")
                    await socket.close(code: 1000, reason: "done")
                    outcome.yield((accepted, !socket.trySend(bytes: Array("after close".utf8)[...])))
                }
            }
        }
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/try")
        let reading = Task {
            var received: [String] = []
            for try await batch in connection.inbound {
                for index in batch.indices { received.append(String(decoding: batch[index].prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)) }
            }
            return received
        }
        let result = try #require(await outcome.next())
        let received = try await reading.value
        #expect(result.accepted > 0)
        #expect(result.refusedWhenClosing)
        #expect(received == (0..<result.accepted).map(String.init) + ["last"])
        await server.shutdown()
    }

    /// When the peer stops answering pings, the client drops the connection and
    /// reports the peer as unresponsive.
    @Test func unansweredPingsDetectDeadPeer() async throws {
        let server = try await startEchoServer { configuration in
            // The server stops reading after one byte is buffered, so it never sees the pings.
            configuration.receiveBufferLimit = 1
            configuration.webSocketResponder = { _ in
                .accept { socket in _ = await socket.closed() }
            }
        }
        var configuration = WebSocketConfiguration()
        configuration.pingIntervalSeconds = 1
        configuration.hangUpAfterSeconds = 2
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/silent", configuration: configuration)
        try await connection.send("fill the server's buffer")
        await #expect(throws: TransportError.peerUnresponsive(seconds: 2)) {
            for try await _ in connection.inbound {}
        }
        await server.shutdown()
    }

    /// Shutting down the client loop and the server while messages stream ends
    /// both sides cleanly and their service threads exit.
    @Test func shutdownWhileMessagesAreInFlight() async throws {
        // The loop's own thread (the system keeps 15 bytes of its name).
        let threadsBefore = runningThreads(named: "entitystream-te")
        let server = try await startEchoServer { configuration in
            configuration.webSocketResponder = { _ in
                .accept { socket in
                    var index = 0
                    while (try? await socket.send("tick \(index)")) != nil { index += 1 }
                }
            }
        }
        let loop = TransportEventLoop(name: "entitystream-test")
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/stream", eventLoop: loop)
        var iterator = connection.inbound.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.isEmpty == false)
        await loop.shutdown()
        // Whatever was in flight is delivered; then the sequence ends or reports the shutdown.
        do {
            while try await iterator.next() != nil {}
        } catch {
            #expect(error == .shutDown)
        }
        let ending = await connection.closed()
        switch ending {
        case .success(let info): #expect(info.code == 1001)
        case .failure(let error): #expect(error == .shutDown)
        }
        await #expect(throws: TransportError.shutDown) {
            _ = try await WebSocketClient.connect(to: "\(server.webSocketBase)/stream", eventLoop: loop)
        }
        await server.shutdown()
        let threadsAfter = runningThreads(named: "entitystream-te")
        #expect(threadsAfter <= threadsBefore)
    }

    /// Server shutdown returns only when no handler is running: one waiting on
    /// something else entirely is cancelled and awaited.
    @Test func shutdownEndsEveryHandler() async throws {
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (ended, endedContinuation) = AsyncStream.makeStream(of: Bool.self)
        let server = try await startEchoServer { configuration in
            configuration.webSocketResponder = { _ in
                .accept { _ in
                    startedContinuation.yield()
                    let (never, _) = AsyncStream.makeStream(of: Int.self)
                    for await _ in never {}
                    endedContinuation.yield(Task.isCancelled)
                }
            }
        }
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/idle")
        var startedIterator = started.makeAsyncIterator()
        _ = await startedIterator.next()
        #expect(server.runningHandlerCount == 1)
        await server.shutdown()
        #expect(server.runningHandlerCount == 0)
        var endedIterator = ended.makeAsyncIterator()
        #expect(await endedIterator.next() == true)
        await connection.close()
    }

    /// shutdown() while the loop is still starting answers everyone: the connect that started it
    /// succeeds or fails with shutDown, shutdown returns, and no service thread is left behind.
    @Test func shutdownWhileStartingAnswersEveryone() async throws {
        let server = try await startEchoServer()
        let threadsBefore = runningThreads(named: "es-race")
        for _ in 0..<20 {
            let loop = TransportEventLoop(name: "es-race")
            async let connecting: WebSocketConnection? = try? WebSocketClient.connect(to: "\(server.webSocketBase)/echo", eventLoop: loop)
            await loop.shutdown()
            if let connection = await connecting {
                let ending = await connection.closed()
                if case .failure(let error) = ending { #expect(error == .shutDown) }
            }
        }
        let threadsAfter = runningThreads(named: "es-race")
        #expect(threadsAfter <= threadsBefore)
        await server.shutdown()
    }
}
