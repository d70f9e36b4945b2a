import EntityStreamTestSupport
import Testing
import EntityStreamTransport

@Suite("Listening address", .bounded(.io))
struct ListenAddressTests {
    /// Host texts parse to exactly one address or to every interface; anything else is refused by name.
    @Test func parsesHostTexts() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1") == .loopback)
        #expect(try ListenAddress(parsing: "localhost") == .loopback)
        #expect(try ListenAddress(parsing: "::") == .everyInterface)
        let v6 = try ListenAddress(parsing: "[::1]")
        #expect(v6.address == "::1" && v6.family == .ipv6 && v6.urlHost == "[::1]")
        #expect(try ListenAddress(parsing: "0.0.0.0").address == nil)
        for bad in ["", "example.com", "127.0.0.1:80", "1.2.3", "::g"] {
            #expect(throws: TransportError.self) { try ListenAddress(parsing: bad) }
        }
    }

    /// An address this machine does not have cannot be listened on, and says so before any server starts.
    @Test func foreignAddressIsUnusable() async throws {
        let foreign = try ListenAddress(parsing: "192.0.2.1")   // TEST-NET-1, never local
        #expect(throws: TransportError.self) { try foreign.checkUsable() }
        var configuration = ServerConfiguration()
        configuration.host = "192.0.2.1"
        await #expect(throws: TransportError.self) { _ = try await TransportServer.start(configuration) }
    }

    /// A server on 127.0.0.1 answers there and nowhere else: not on 127.0.0.2, not on [::1]
    /// (libwebsockets 4.1 used to listen on every interface whatever the address).
    @Test func loopbackServerIsReachableOnlyThere() async throws {
        let server = try await startEchoServer()
        #expect(server.listenAddress == .loopback)
        #expect(server.httpBase == "http://127.0.0.1:\(server.port)")
        let client = HTTPClient()
        #expect(try await client.get("\(server.httpBase)/x").status == 404)
        for other in ["http://127.0.0.2:\(server.port)/x", "http://[::1]:\(server.port)/x"] {
            do {
                _ = try await client.get(other)
                Issue.record("\(other) answered")
            } catch {
                guard case .requestFailedOrRefused = Outcome(error) else {
                    Issue.record("expected a refused connection for \(other), got \(error)")
                    continue
                }
            }
        }
        await server.shutdown()
    }

    /// A server on [::1] prints and answers an IPv6 URL (skipped where the machine has no IPv6 loopback).
    @Test(.enabled(if: (try? ListenAddress(parsing: "::1").checkUsable()) != nil))
    func ipv6LoopbackServer() async throws {
        // This server's own answer, told apart from another test's server that may hold the same port on 127.0.0.1.
        let marker = "ipv6-only-\(UInt64.random(in: 0...UInt64.max))"
        let server = try await startEchoServer {
            $0.host = "::1"
            $0.httpResponder = { _ in HTTPServerResponse(status: 200, contentType: "text/plain", text: marker) }
        }
        #expect(server.webSocketBase == "ws://[::1]:\(server.port)")
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/echo")
        try await connection.send("over IPv6")
        var iterator = connection.inbound.makeAsyncIterator()
        #expect(try await iterator.next()?.text(at: 0) == "over IPv6")
        await connection.close()
        if let answer = try? await HTTPClient().get("http://127.0.0.1:\(server.port)/x") {
            #expect(answer.text != marker, "the IPv6 server answered on 127.0.0.1")
        }
        await server.shutdown()
    }

    private enum Outcome {
        case requestFailedOrRefused, other
        init(_ error: TransportError) {
            switch error {
            case .connectionRefused, .connectionFailed: self = .requestFailedOrRefused
            default: self = .other
            }
        }
    }
}
