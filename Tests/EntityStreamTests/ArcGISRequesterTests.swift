@testable import EntityStream
import EntityStreamCore
import EntityStreamModel
import EntityStreamTestSupport
import Testing
import EntityStreamTransport
import EntityStreamFeatures

/// Hands out `first`, then one token of `replacements` per renewal (none left: unavailable), counting the renewals asked for.
private actor ScriptedTokens: TokenSource {
    private var current: String?
    private var replacements: [String]
    private(set) var renewals = 0

    init(_ first: String?, replacements: [String]) {
        current = first
        self.replacements = replacements
    }

    func token() -> String? { current }

    func renewToken(rejected: String?) -> TokenRenewal {
        renewals += 1
        guard !replacements.isEmpty else { return .unavailable }
        current = replacements.removeFirst()
        return .renewed(current)
    }
}

/// A requester for the layer `X/MapServer/0` at `base` (`query`: the URL's own query string).
private func requester(_ base: String, query: String = "", tokens: (any TokenSource)?, http: HTTPClientConfiguration = HTTPClientConfiguration(),
                       maximumGETLength: Int? = 2000) throws -> ArcGISRequester {
    let endpoint = try ArcGISEndpoint(parsing: "\(base)/arcgis/rest/services/X/MapServer/0\(query)", droppingSuffix: "/query")
    return ArcGISRequester(endpoint: endpoint, keepingQueryItems: true, tokenSource: tokens, http: HTTPClient(configuration: http),
                           maximumGETLength: maximumGETLength)
}

/// The error `sender` throws for `GET [path]?f=json`, nil when it answers.
private func requestError(_ sender: ArcGISRequester, path: String? = nil) async -> ArcGISRequestError? {
    do throws(ArcGISRequestError) {
        _ = try await sender.send(.get, path: path, parameters: [("f", "json")])
        return nil
    } catch {
        return error
    }
}

@Suite("ArcGIS requester: token renewal and transport failures", .bounded(.io))
struct ArcGISRequesterTests {
    /// A rejected token is renewed exactly once, the request is sent again with the new token, and that second answer is returned.
    @Test func renewsOnceThenUsesTheRetriedAnswer() async throws {
        let responder = try RawHTTPResponder.start { head in
            head.contains("token=fresh-token")
                ? RawHTTPResponder.response(body: Array(#"{"answer":"with the fresh token"}"#.utf8))
                : RawHTTPResponder.response(body: Array(#"{"error":{"code":498,"message":"Invalid Token","details":[]}}"#.utf8))
        }
        defer { responder.stop() }
        let tokens = ScriptedTokens("stale-token", replacements: ["fresh-token", "never-used-token"])
        let answer = try await requester(responder.base, tokens: tokens).send(.get, path: "query", parameters: [("f", "json")])
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"answer":"with the fresh token"}"#)
        #expect(await tokens.renewals == 1)
        let requests = responder.requests
        #expect(requests.count == 2)
        #expect(requests.first?.hasPrefix("GET /arcgis/rest/services/X/MapServer/0/query?f=json&token=stale-token HTTP/1.1") == true)
        #expect(requests.last?.hasPrefix("GET /arcgis/rest/services/X/MapServer/0/query?f=json&token=fresh-token HTTP/1.1") == true)
    }

    /// A renewed token refused too is the token error (renewed), after exactly one renewal and two requests; neither token is in its text.
    @Test func secondRejectionIsTheTokenError() async throws {
        let responder = try RawHTTPResponder.start { _ in RawHTTPResponder.response(status: 498, body: []) }
        defer { responder.stop() }
        let tokens = ScriptedTokens("stale-token", replacements: ["fresh-token", "never-used-token"])
        let sender = try requester(responder.base, tokens: tokens)
        let error = await requestError(sender)
        #expect(error == .tokenRejected(ArcGISError(code: 498, message: "Invalid Token"), renewed: true))
        #expect(error?.description.hasSuffix(": the renewed token was refused too") == true)
        #expect(error?.description.contains("token=") == false)
        #expect(error?.isReachabilityFailure == true)
        #expect(await tokens.renewals == 1)
        #expect(responder.requests.count == 2)
    }

    /// Without another token a 499 fails at once, saying to give one; a source that has none left is asked once and the request is not repeated.
    @Test func noOtherTokenFailsAtOnce() async throws {
        let responder = try RawHTTPResponder.start { _ in
            RawHTTPResponder.response(body: Array(#"{"error":{"code":499,"message":"Token Required","details":[]}}"#.utf8))
        }
        defer { responder.stop() }
        let withoutToken = try requester(responder.base, tokens: nil)
        let none = await requestError(withoutToken)
        #expect(none == .tokenRejected(ArcGISError(code: 499, message: "Token Required"), renewed: false))
        #expect(none?.description.hasSuffix(": the service requires a token: give one with --token") == true)
        let tokens = ScriptedTokens("only-token", replacements: [])
        let withOneToken = try requester(responder.base, tokens: tokens)
        let exhausted = await requestError(withOneToken)
        #expect(exhausted == .tokenRejected(ArcGISError(code: 499, message: "Token Required"), renewed: false))
        #expect(await tokens.renewals == 1)
        #expect(responder.requests.count == 2)
    }

    /// A port nothing listens on, a body over the size limit and a body shorter than its Content-Length each give their text, naming the layer URL without the token.
    @Test func transportFailureTexts() async throws {
        let closed = try RefusingPort()
        defer { closed.close() }
        let port = closed.port
        let layer = "http://127.0.0.1:\(port)/arcgis/rest/services/X/MapServer/0"
        let toClosedPort = try requester("http://127.0.0.1:\(port)", tokens: StaticTokenSource("hidden-token-value"))
        let refused = await requestError(toClosedPort, path: "query")
        #expect(refused?.description == "cannot reach \(layer): connection refused by 127.0.0.1:\(port) (nothing listening or unreachable)")

        let body = Array(#"{"features":[]}"#.utf8) + Array(repeating: UInt8(ascii: " "), count: 200)
        let large = try RawHTTPResponder.start { _ in RawHTTPResponder.response(body: body) }
        defer { large.stop() }
        var small = HTTPClientConfiguration()
        small.maximumBodySize = 100
        let limited = try requester(large.base, tokens: StaticTokenSource("hidden-token-value"), http: small)
        let tooLarge = await requestError(limited)
        #expect(tooLarge?.description == "cannot reach \(large.base)/arcgis/rest/services/X/MapServer/0: HTTP response body exceeds the maximum size of 100 bytes")

        let cut = try RawHTTPResponder.start { _ in RawHTTPResponder.response(body: Array(#"{"features":["#.utf8), contentLength: 500) }
        defer { cut.stop() }
        let toCut = try requester(cut.base, tokens: nil)
        let truncated = await requestError(toCut)
        #expect(truncated == .truncated(url: "\(cut.base)/arcgis/rest/services/X/MapServer/0", received: 13, expected: 500))
        #expect(truncated?.description == "the response from \(cut.base)/arcgis/rest/services/X/MapServer/0 was truncated after 13 bytes of 500")
        for error in [refused, tooLarge, truncated] { #expect(error?.isReachabilityFailure == true) }
    }

    /// A server that does not answer within the timeout is unreachable with the transport's message, which names the request URL but never its token.
    @Test func timeoutTextHidesTheToken() async throws {
        let release = AsyncStreamBox<Void>()
        var configuration = ServerConfiguration()
        configuration.httpResponder = { _ in
            _ = await release.next()
            return HTTPServerResponse(text: "{}")
        }
        let server = try await TransportServer.start(configuration)
        var quick = HTTPClientConfiguration()
        quick.timeout = .milliseconds(300)
        let token = "secret/token+value"
        let impatient = try requester(server.httpBase, tokens: StaticTokenSource(token), http: quick)
        let error = await requestError(impatient, path: "query")
        guard case .unreachable(let url, let detail)? = error else { Issue.record("\(String(describing: error))"); release.yield(()); return }
        #expect(url == "\(server.httpBase)/arcgis/rest/services/X/MapServer/0")
        #expect(detail.contains("timed out after 0.3 s"))
        #expect(detail.contains("/arcgis/rest/services/X/MapServer/0/query?f=json"))
        let text = error?.description ?? ""
        #expect(!text.contains(token) && !text.contains(PercentEncoding.encode(token)) && !text.contains("secret"))
        release.yield(())
        await server.shutdown()
    }

    /// The URL's own query items go with every request unless the request sets them; a GET longer than the limit goes as a POST form, its token out of the URL.
    @Test func queryItemsAndLongRequestsAsPOST() async throws {
        let responder = try RawHTTPResponder.start { _ in RawHTTPResponder.response(body: Array("{}".utf8)) }
        defer { responder.stop() }
        let sender = try requester(responder.base, query: "?gdbVersion=v1&where=dropped&f=pjson", tokens: StaticTokenSource("hidden-token-value"),
                                   maximumGETLength: 200)
        _ = try await sender.send(.get, path: "query", parameters: [("where", "1=1"), ("f", "json")])
        _ = try await sender.send(.get, path: "query", parameters: [("objectIds", (1...100).map(String.init).joined(separator: ",")), ("f", "json")])
        _ = try await sender.send(.post, path: "submitJob", parameters: [("f", "json")])
        let requests = responder.requests
        #expect(requests.count == 3)
        #expect(requests.first?.hasPrefix("GET /arcgis/rest/services/X/MapServer/0/query?gdbVersion=v1&where=1%3D1&f=json&token=hidden-token-value HTTP/1.1") == true)
        #expect(requests.dropFirst().first?.hasPrefix("POST /arcgis/rest/services/X/MapServer/0/query HTTP/1.1") == true)
        #expect(requests.last?.hasPrefix("POST /arcgis/rest/services/X/MapServer/0/submitJob HTTP/1.1") == true)
        #expect(requests.dropFirst().allSatisfy { !$0.contains("hidden-token-value") })
    }

    /// A task cancelled before it sends gets `cancelled` (not a reachability failure) and nothing reaches the server.
    @Test func cancelledBeforeSending() async throws {
        let responder = try RawHTTPResponder.start { _ in RawHTTPResponder.response(body: Array("{}".utf8)) }
        defer { responder.stop() }
        let sender = try requester(responder.base, tokens: nil)
        let task = Task { () async -> ArcGISRequestError? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await requestError(sender)
        }
        let error = await task.value
        #expect(error == .cancelled)
        #expect(error?.isReachabilityFailure == false)
        #expect(responder.requests.isEmpty)
    }

    /// An answer the client could not read is classified: HTML is not ArcGIS, JSON stopping at the end is truncated, a 5xx page is its status, bad JSON shapes are unexpected (token scrubbed) or their HTTP status.
    @Test func answerFailureTexts() {
        let url = "http://127.0.0.1:1/arcgis/rest/services/X/MapServer/0"
        func answer(_ status: Int, _ text: String, type: String = "application/json") -> ArcGISAnswer {
            ArcGISAnswer(response: HTTPResponse(status: status, headers: ["Content-Type": type], body: Array(text.utf8), url: url),
                         url: url, token: "hidden-token-value")
        }
        #expect(answer(200, "<html>Welcome</html>", type: "text/html").notJSON().description
                == "not an ArcGIS REST endpoint (\(url) answered HTTP 200 text/html: <html>Welcome</html>)")
        #expect(answer(200, #"{"features":[{"attributes":{"#).notJSON() == .truncated(url: url, received: 28, expected: nil))
        #expect(answer(200, #"{"features":[{"attributes":{"#).notJSON().description == "the response from \(url) was truncated after 28 bytes")
        #expect(answer(200, #"{"features": nope}"#).notJSON() == .notArcGIS(url: url, status: 200, contentType: "application/json", excerpt: #"{"features": nope}"#))
        #expect(answer(502, "Bad Gateway", type: "text/plain").notJSON().description == "\(url) answered HTTP 502: Bad Gateway")
        #expect(answer(200, "{}").unexpected("no 'jobId' near hidden-token-value").description
                == "unexpected answer from \(url): no 'jobId' near ***")
        #expect(answer(404, "{}").unexpected("no 'jobId'") == .httpStatus(url: url, status: 404, excerpt: "{}"))
        #expect(answer(200, "").notJSON().description == "not an ArcGIS REST endpoint (\(url) answered HTTP 200 application/json: (empty body))")
    }
}

@Suite("ArcGIS endpoint URLs: refused by what is wrong, never showing the token", .bounded)
struct ArcGISEndpointErrorTests {
    @Test func refusedByCase() {
        #expect(throws: ArcGISEndpointError.invalidURL(.invalidURL("ws://host/arcgis/rest/services/X/FeatureServer/0", reason: "expected an http:// or https:// URL"))) {
            try ArcGISEndpoint(parsing: "ws://host/arcgis/rest/services/X/FeatureServer/0/query", droppingSuffix: "/query")
        }
        let error = #expect(throws: ArcGISEndpointError.self) {
            try ArcGISEndpoint(parsing: "https://host/arcgis/rest/services/X/FeatureServer/0?token=SECRET&a=%zz", droppingSuffix: "/query")
        }
        guard case .malformedQuery? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(error?.description.hasPrefix("the query string of 'https://host/arcgis/rest/services/X/FeatureServer/0?") == true)
        #expect(error?.description.contains("SECRET") == false)
    }

    /// A layer client refuses a URL that is no http(s) endpoint with the endpoint's error, not its text.
    @Test func layerClientKeepsTheEndpointError() {
        let url = "ws://host/arcgis/rest/services/X/FeatureServer/0"
        let error = #expect(throws: FeatureLayerError.invalidURL(.invalidURL(.invalidURL(url, reason: "expected an http:// or https:// URL")))) {
            try FeatureLayerClient(layerURL: url)
        }
        #expect(error?.description == "invalid layer URL: invalid URL '\(url)': expected an http:// or https:// URL")
        #expect(error?.isReachabilityFailure == false)
    }
}
