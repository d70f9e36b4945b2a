import EntityStreamTestSupport
import Testing
import EntityStreamTransport

/// What the server does with frames a conforming client would never send (RFC 6455).
@Suite("Server WebSocket conformance", .bounded(.io))
struct ServerConformanceTests {
    /// An echo server that also reports how each connection ended.
    private func server(endings: AsyncStreamBox<Result<CloseInfo, TransportError>>) async throws -> TransportServer {
        try await startEchoServer { configuration in
            configuration.webSocketResponder = { _ in
                .accept { socket in
                    do {
                        for try await batch in socket.inbound {
                            for index in batch.indices { try await socket.send(batch.text(at: index)) }
                        }
                    } catch {}
                    endings.yield(await socket.closed())
                }
            }
        }
    }

    /// A close frame with code 5000 (not allowed on the wire, §7.4) is answered with 1002, not echoed.
    @Test func invalidCloseCodeIsAnsweredWithProtocolError() async throws {
        let endings = AsyncStreamBox<Result<CloseInfo, TransportError>>()
        let server = try await server(endings: endings)
        let answer = try await RawWebSocket.conversation(port: server.port) { client in
            try client.sendFrame(opcode: 0x8, payload: [0x13, 0x88] + Array("bad".utf8))   // 5000
            return client.readUntilClose()
        }
        #expect(answer?.closeCode == 1002)
        let ending = await endings.next()
        #expect(ending == .success(CloseInfo(code: 5000, reason: "bad", initiatedByPeer: true)))
        await server.shutdown()
    }

    /// A valid close code is echoed.
    @Test func validCloseCodeIsEchoed() async throws {
        let endings = AsyncStreamBox<Result<CloseInfo, TransportError>>()
        let server = try await server(endings: endings)
        let (echo, close) = try await RawWebSocket.conversation(port: server.port) { client in
            try client.sendFrame(opcode: 0x1, payload: Array("hello".utf8))
            let echo = try client.readFrame()
            try client.sendFrame(opcode: 0x8, payload: [0x0F, 0xA0])   // 4000
            return (echo, client.readUntilClose())
        }
        #expect(echo == RawWebSocket.Frame(opcode: 0x1, payload: Array("hello".utf8)))
        #expect(close?.closeCode == 4000)
        await server.shutdown()
    }

    /// A text message that is not valid UTF-8 ends the connection with 1007 (§8.1).
    @Test func invalidUTF8ClosesWith1007() async throws {
        let endings = AsyncStreamBox<Result<CloseInfo, TransportError>>()
        let server = try await server(endings: endings)
        let close = try await RawWebSocket.conversation(port: server.port) { client in
            try client.sendFrame(opcode: 0x1, payload: [0x7B, 0xC3, 0x28, 0x7D])   // "{", broken 2-byte sequence, "}"
            return client.readUntilClose()
        }
        #expect(close?.closeCode == 1007)
        await server.shutdown()
    }

    /// An unmasked client frame must close the connection (§5.1). Only libwebsockets 5.0 and later
    /// check the mask bit: 4.x (Debian 12 has 4.1.6) drops it in its frame parser and reports it
    /// nowhere (see ``LibWebSocketsVersion/closesUnmaskedClientFrames``), so the test runs where the
    /// installed library can pass it.
    @Test(.enabled(if: LibWebSocketsVersion.closesUnmaskedClientFrames,
                   "libwebsockets \(LibWebSocketsVersion.text) accepts unmasked client frames and reports no mask bit (fixed in 5.0.0)"))
    func unmaskedClientFrameCloses() async throws {
        let endings = AsyncStreamBox<Result<CloseInfo, TransportError>>()
        let server = try await server(endings: endings)
        let close = try await RawWebSocket.conversation(port: server.port) { client in
            try client.sendFrame(opcode: 0x1, payload: Array("plain".utf8), masked: false)
            return client.readUntilClose()
        }
        #expect(close?.closeCode == 1002)
        await server.shutdown()
    }
}
