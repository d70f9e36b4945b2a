import EntityStreamTestSupport
import Testing
import EntityStreamTransport

/// An HTTP server for tests: `/hello` 200, `/echo-form` echoes the POST form,
/// `/hop/N` redirects N times to `/hello`, `/slow` never answers until released.
private func startHTTPServer(release: AsyncStreamBox<Void>? = nil) async throws -> TransportServer {
    var configuration = ServerConfiguration()
    configuration.httpResponder = { request in
        switch request.path {
        case "/hello":
            return HTTPServerResponse(status: 200, contentType: "text/plain", headers: ["X-Greeting": "hi"], text: "hello, world")
        case "/echo-form":
            let fields = request.formFields.map { "\($0.0)=\($0.1)" }.joined(separator: ";")
            return HTTPServerResponse(status: 200, contentType: "text/plain", text: "\(request.method.rawValue) \(fields)")
        case "/slow":
            _ = await release?.next()
            return HTTPServerResponse(status: 200, text: "late")
        default:
            if request.path.hasPrefix("/hop/"), let hops = Int(request.path.dropFirst(5)) {
                let location = hops <= 1 ? "/hello" : "/hop/\(hops - 1)"
                return HTTPServerResponse(status: 302, contentType: "text/plain", headers: ["Location": location], text: "")
            }
            return HTTPServerResponse(status: 404, contentType: "text/plain", text: "not found: \(request.path)")
        }
    }
    return try await TransportServer.start(configuration)
}

@Suite("HTTP client", .bounded(.io))
struct HTTPClientTests {
    /// GET returns status 200, the headers and the body.
    @Test func getReturnsStatusHeadersAndBody() async throws {
        let server = try await startHTTPServer()
        let response = try await HTTPClient().get("\(server.httpBase)/hello")
        #expect(response.status == 200)
        #expect(response.text == "hello, world")
        #expect(response.headers["content-type"] == "text/plain")
        #expect(response.headers["content-length"] == "12")
        await server.shutdown()
    }

    /// A 404 is a response with its body, not an error.
    @Test func notFoundIsAResponse() async throws {
        let server = try await startHTTPServer()
        let response = try await HTTPClient().get("\(server.httpBase)/missing?x=1")
        #expect(response.status == 404)
        #expect(response.text == "not found: /missing")
        await server.shutdown()
    }

    /// A form POST reaches the server decoded, including characters that need encoding.
    @Test func postFormRoundTrips() async throws {
        let server = try await startHTTPServer()
        let response = try await HTTPClient().postForm("\(server.httpBase)/echo-form",
                                                       [("where", "speed > 0 AND name = 'A&B'"), ("f", "json")])
        #expect(response.status == 200)
        #expect(response.text == "POST where=speed > 0 AND name = 'A&B';f=json")
        await server.shutdown()
    }

    /// Redirects are followed up to five times; a sixth is an error.
    @Test func followsUpToFiveRedirects() async throws {
        let server = try await startHTTPServer()
        let response = try await HTTPClient().get("\(server.httpBase)/hop/5")
        #expect(response.status == 200)
        #expect(response.text == "hello, world")
        #expect(response.url.hasSuffix("/hello"))
        await #expect(throws: TransportError.tooManyRedirects(limit: 5)) {
            _ = try await HTTPClient().get("\(server.httpBase)/hop/6")
        }
        await server.shutdown()
    }

    /// A server that does not answer in time gives a timeout error.
    @Test func slowServerTimesOut() async throws {
        let release = AsyncStreamBox<Void>()
        let server = try await startHTTPServer(release: release)
        var configuration = HTTPClientConfiguration()
        configuration.timeout = .milliseconds(300)
        do {
            _ = try await HTTPClient(configuration: configuration).get("\(server.httpBase)/slow")
            Issue.record("expected a timeout")
        } catch {
            guard case .timedOut = error else { return #expect(Bool(false), "expected timedOut, got \(error)") }
        }
        release.yield(())
        await server.shutdown()
    }

    /// A body over the limit is an error naming the limit.
    @Test func oversizedBodyIsRejected() async throws {
        let server = try await startHTTPServer()
        var configuration = HTTPClientConfiguration()
        configuration.maximumBodySize = 5
        await #expect(throws: TransportError.bodyTooLarge(limit: 5)) {
            _ = try await HTTPClient(configuration: configuration).get("\(server.httpBase)/hello")
        }
        await server.shutdown()
    }
}
