import Testing
import EntityStreamTransport
import EntityStreamTestSupport

@Suite("WebSocket messages", .bounded(.io))
struct WebSocketMessageTests {
    /// 10,000 messages sent to an echo server come back complete and in order.
    @Test func echoesTenThousandMessagesInOrder() async throws {
        let server = try await startEchoServer()
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/echo")
        let count = 10_000
        let sender = Task {
            for index in 0..<count { try await connection.send("message \(index)") }
        }
        var received: [String] = []
        for try await batch in connection.inbound {
            for index in batch.indices { received.append(batch.text(at: index)) }
            if received.count >= count { break }
        }
        try await sender.value
        #expect(received == (0..<count).map { "message \($0)" })
        await connection.close()
        #expect(await connection.closed() == .success(CloseInfo(code: 1000, reason: "", initiatedByPeer: false)))
        await server.shutdown()
    }

    /// A 1 MiB message the server sends as 64 fragments arrives as one whole message.
    @Test func reassemblesFragmentedMessage() async throws {
        let payload = String(repeating: "0123456789abcdef", count: 65_536)
        let server = try await startEchoServer { configuration in
            configuration.fragmentSize = 16 * 1024
            configuration.webSocketResponder = { _ in
                .accept { socket in try? await socket.send(payload) }
            }
        }
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/big")
        var messages: [String] = []
        for try await batch in connection.inbound {
            for index in batch.indices { messages.append(batch.text(at: index)) }
        }
        #expect(messages.count == 1)
        #expect(messages.first?.utf8.count == 1 << 20)
        #expect(messages.first == payload)
        await server.shutdown()
    }

    /// A message over the client's limit fails the inbound sequence with the size
    /// error, and the client closes with 1009 so the server sees a clean close.
    @Test func overLimitMessageFailsAndClosesCleanly() async throws {
        let serverSaw = AsyncStreamBox<Result<CloseInfo, TransportError>>()
        let server = try await startEchoServer { configuration in
            configuration.webSocketResponder = { _ in
                .accept { socket in
                    try? await socket.send("small first")
                    try? await socket.send(String(repeating: "x", count: 100_000))
                    serverSaw.yield(await socket.closed())
                }
            }
        }
        var configuration = WebSocketConfiguration()
        configuration.maximumMessageSize = 64 * 1024
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/big", configuration: configuration)
        var received: [String] = []
        await #expect(throws: TransportError.messageTooLarge(limit: 64 * 1024)) {
            for try await batch in connection.inbound {
                for index in batch.indices { received.append(batch.text(at: index)) }
            }
        }
        #expect(received == ["small first"])
        let serverEnding = await serverSaw.next()
        #expect(serverEnding == .success(CloseInfo(code: 1009, reason: "message exceeds 65536 bytes", initiatedByPeer: true)))
        #expect(await connection.closed() == .failure(.messageTooLarge(limit: 64 * 1024)))
        await server.shutdown()
    }

    /// 50 clients on one server each receive exactly the messages addressed to them.
    @Test func fiftyConcurrentClientsEachGetTheirOwnMessages() async throws {
        let server = try await startEchoServer { configuration in
            configuration.webSocketResponder = { request in
                let client = request.queryValue("client") ?? "?"
                return .accept { socket in
                    for index in 0..<200 { try? await socket.send("\(client):\(index)") }
                }
            }
        }
        try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for client in 0..<50 {
                group.addTask {
                    let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/feed?client=\(client)")
                    var received: [String] = []
                    for try await batch in connection.inbound {
                        for index in batch.indices { received.append(batch.text(at: index)) }
                    }
                    return (client, received)
                }
            }
            var seen = 0
            for try await (client, received) in group {
                #expect(received == (0..<200).map { "\(client):\($0)" })
                seen += 1
            }
            #expect(seen == 50)
        }
        await server.shutdown()
    }
}
