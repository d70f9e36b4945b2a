import EntityStreamTestSupport
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import EntityStreamTransport

@Suite("Connection outcomes", .bounded(.io))
struct ConnectionFailureTests {
    /// A server close with code 4400 and a reason reaches the client as both.
    @Test func serverCloseCodeAndReasonReachClient() async throws {
        let server = try await startEchoServer { configuration in
            configuration.webSocketResponder = { _ in
                .accept { socket in await socket.close(code: 4400, reason: "invalid filter") }
            }
        }
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/x")
        for try await _ in connection.inbound {}
        #expect(await connection.closed() == .success(CloseInfo(code: 4400, reason: "invalid filter", initiatedByPeer: true)))
        await server.shutdown()
    }

    /// An upgrade refused with HTTP 401 surfaces as a handshake error naming 401.
    @Test(arguments: [401, 404, 503])
    func refusedUpgradeNamesTheStatus(status: Int) async throws {
        let server = try await startEchoServer { configuration in
            configuration.webSocketResponder = { _ in .reject(status: status, body: "no") }
        }
        await #expect(throws: TransportError.handshakeRejected(status: status)) {
            _ = try await WebSocketClient.connect(to: "\(server.webSocketBase)/x")
        }
        #expect(TransportError.handshakeRejected(status: status).description.contains("\(status)"))
        await server.shutdown()
    }

    /// A refused upgrade is a whole HTTP/1.1 answer with the status and its reason (not HTTP/1.0, which
    /// WebSocket clients report as "not a valid HTTP response" instead of the status).
    @Test(arguments: [401, 404, 503])
    func refusedUpgradeIsHTTP11(status: Int) async throws {
        let server = try await startEchoServer { configuration in
            configuration.webSocketResponder = { _ in .reject(status: status, body: "no") }
        }
        let port = server.port
        let head: String = try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let client = try RawWebSocket(port: port, path: "/x")
                    client.close()
                    continuation.resume(returning: "upgraded")
                } catch {
                    continuation.resume(returning: "\(error)")
                }
            }.start()
        }
        let reasons = [401: "Unauthorized", 404: "Not Found", 503: "Service Unavailable"]
        #expect(head.contains("HTTP/1.1 \(status) \(reasons[status] ?? "")\r\n"), "\(head)")
        #expect(head.lowercased().contains("content-length: 2"))
        await server.shutdown()
    }

    /// Connecting where nothing listens is a connection-refused error.
    @Test func nothingListeningIsConnectionRefused() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        await #expect(throws: TransportError.connectionRefused(host: "127.0.0.1", port: port)) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/x")
        }
        withExtendedLifetime(closed) {}
    }

    /// A host name that does not resolve is a DNS error, not a refused connection.
    @Test func unknownHostIsDNSFailure() async throws {
        do {
            _ = try await WebSocketClient.connect(to: "ws://no-such-host.invalid/x")
            Issue.record("expected a DNS failure")
        } catch {
            guard case .dnsFailure(let host, _) = error else {
                Issue.record("expected dnsFailure, got \(error)")
                return
            }
            #expect(host == "no-such-host.invalid")
        }
    }

    /// Malformed URLs are rejected before anything connects, naming the problem.
    @Test(arguments: ["127.0.0.1:80/x", "ftp://host/x", "ws://host:99999/x", "ws:///x", "ws://user@host/x"])
    func malformedURLIsRejected(url: String) async throws {
        do {
            _ = try await WebSocketClient.connect(to: url)
            Issue.record("expected invalidURL for \(url)")
        } catch {
            guard case .invalidURL(let text, let reason) = error else {
                Issue.record("expected invalidURL, got \(error)")
                return
            }
            #expect(text == url)
            #expect(!reason.isEmpty)
        }
    }
}

/// A TCP port that accepts connections (the kernel's backlog) but never answers.
private final class SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard bound == 0, named == 0, listen(descriptor, 16) == 0 else { throw TestSupportError("cannot listen") }
    }

    deinit { close(descriptor) }
}

@Suite("Connect deadline", .bounded(.io))
struct ConnectDeadlineTests {
    /// A server that never answers the upgrade: the connect gives up at the configured timeout.
    @Test func silentServerTimesOut() async throws {
        let listener = try SilentListener()
        var configuration = WebSocketConfiguration()
        configuration.connectTimeout = .milliseconds(300)
        // The error names the deadline that fired (not a refusal or a close).
        await #expect(throws: TransportError.timedOut(operation: "opening ws://127.0.0.1:\(listener.port)/x", seconds: 0.3)) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(listener.port)/x", configuration: configuration)
        }
    }

    /// Cancelling the task that connects abandons the attempt at once with `cancelled`.
    @Test func cancellingAbandonsTheConnect() async throws {
        let listener = try SilentListener()
        let attempt = Task { () -> TransportError? in
            do throws(TransportError) {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(listener.port)/x")
                return nil
            } catch { return error }
        }
        attempt.cancel()
        let outcome = await attempt.value
        #expect(outcome == .cancelled)
    }
}

@Suite("TLS", .bounded(.io))
struct TLSTests {
    /// A wss:// server with a self-signed certificate is accepted only when the
    /// client allows self-signed certificates; otherwise it is a TLS error.
    @Test func selfSignedCertificateAcceptedOnlyWhenAllowed() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let server = try await startEchoServer { configuration in
            configuration.tls = certificate.tlsFiles
        }
        #expect(server.webSocketBase.hasPrefix("wss://"))

        do {
            _ = try await WebSocketClient.connect(to: "\(server.webSocketBase)/echo")
            Issue.record("a self-signed certificate must be rejected by default")
        } catch {
            guard case .certificateRejected(_, .untrusted, let detail) = error else {
                Issue.record("expected an untrusted certificate, got \(error)")
                return
            }
            // Says what failed, in words (not "error:00000001:lib(0)::reason(1)").
            #expect(detail.contains("not trusted"))
            #expect(detail.contains("self-signed") || detail.contains("self signed"))
        }

        var allowing = WebSocketConfiguration()
        allowing.allowSelfSignedCertificates = true
        let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/echo", configuration: allowing)
        try await connection.send("over TLS")
        var iterator = connection.inbound.makeAsyncIterator()
        let batch = try await iterator.next()
        #expect(batch?.text(at: 0) == "over TLS")
        await connection.close()

        var http = HTTPClientConfiguration()
        http.allowSelfSignedCertificates = true
        let response = try await HTTPClient(configuration: http).get("\(server.httpBase)/nothing")
        #expect(response.status == 404)
        await server.shutdown()
    }

    /// wss:// to a server that does not speak TLS says so, rather than quoting OpenSSL's codes.
    @Test func plainServerIsNotTLS() async throws {
        let server = try await startEchoServer()
        do {
            _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:\(server.port)/echo")
            Issue.record("a plain server must not pass a TLS handshake")
        } catch {
            guard case .tlsFailure(_, let detail) = error else {
                Issue.record("expected tlsFailure, got \(error)")
                await server.shutdown()
                return
            }
            #expect(detail.contains("does not seem to speak TLS"))
        }
        await server.shutdown()
    }
}
