import EntityStreamTestSupport
import Testing
import EntityStreamTransport

/// A layer query that streams a large file can take longer than the server's
/// network timeout; its client must still get the answer, not a closed connection.
@Suite("Server answers slower than its network timeout", .bounded(.io))
struct SlowAnswerTests {
    @Test func anAnswerSlowerThanTheNetworkTimeoutIsDelivered() async throws {
        let handedOver = AsyncStreamBox<Void>()
        let gate = AsyncStreamBox<Void>()
        var configuration = ServerConfiguration()
        configuration.networkTimeoutSeconds = 1
        configuration.httpResponder = { _ in
            handedOver.yield(())
            _ = await gate.next()
            return HTTPServerResponse(status: 200, contentType: "text/plain", text: "the slow answer")
        }
        let server = try await TransportServer.start(configuration)
        let request = "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        async let slow = RawTCPExchange.exchange(port: server.port, send: Array(request.utf8), timeoutMilliseconds: 60_000)
        _ = await handedOver.next()
        // A connection that sends nothing is closed by the network timeout. Once
        // it has been, the slow request has waited longer than that timeout too.
        let idle = await RawTCPExchange.exchange(port: server.port, send: [], timeoutMilliseconds: 60_000)
        gate.yield(())
        let answer = await slow
        await server.shutdown()
        #expect(idle.closedByServer)
        #expect(answer.text.hasPrefix("HTTP/1.1 200"))
        #expect(answer.text.hasSuffix("the slow answer"))
    }
}
