import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamTransport
import EntityStreamModel

/// A TCP port that accepts connections (into the kernel's backlog) and never
/// answers: every request to it times out.
private final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(socket, 16) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        descriptor = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}

/// Options that fail fast: no retry, self-signed TLS allowed (test servers).
/// Timeouts are short only where the test waits for one (a silent peer);
/// elsewhere they are generous, so a loaded machine cannot turn an answer
/// into a timeout.
private func quickOptions(token: String? = nil, httpTimeoutMilliseconds: Int = 20_000,
                          socketTimeoutMilliseconds: Int = 20_000) -> StreamConnectionOptions {
    var options = StreamConnectionOptions()
    options.clock = ManualClock()
    options.token = token
    options.reconnectPolicy = ReconnectPolicy(maximumAttempts: 0)
    options.http.timeout = .milliseconds(httpTimeoutMilliseconds)
    options.webSocket.connectTimeout = .milliseconds(socketTimeoutMilliseconds)
    options.http.allowSelfSignedCertificates = true
    options.webSocket.allowSelfSignedCertificates = true
    return options
}

/// Connects until the connection settles and returns every status change and the last error.
private func connectAndCollect(_ url: String, _ options: StreamConnectionOptions) async -> (statuses: [ConnectionStatusChange], lastError: String?) {
    let sink = RecordingSink()
    let connection = StreamServiceConnection(serviceURL: url, options: options, sink: sink)
    let updates = connection.statusUpdates()
    _ = await connection.connect()
    var statuses: [ConnectionStatusChange] = []
    for await change in updates {
        statuses.append(change)
        if change.status == .failed || change.status == .connected { break }
    }
    let lastError = await connection.lastError
    await connection.disconnect()
    return (statuses, lastError)
}

/// Every text a connection shows (status URLs and errors, the last error).
private func shownTexts(_ result: (statuses: [ConnectionStatusChange], lastError: String?)) -> [String] {
    result.statuses.flatMap { [$0.url, $0.error].compactMap { $0 } } + [result.lastError].compactMap { $0 }
}

@Suite("Credentials: never shown, never sent in clear after TLS", .bounded(.io))
struct CredentialSafetyTests {
    /// A description request that times out names its URL with the token masked.
    @Test func descriptionTimeoutHidesTheToken() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let result = await connectAndCollect("http://127.0.0.1:\(silent.port)/arcgis/rest/services/S/StreamServer",
                                             quickOptions(token: "user-secret-42", httpTimeoutMilliseconds: 400))
        let failure = try #require(result.statuses.last)
        #expect(failure.status == .failed)
        #expect(failure.error?.contains("timed out") == true, "\(failure.error ?? "")")
        #expect(failure.error?.contains("token=***") == true)
        for text in shownTexts(result) { #expect(!text.contains("user-secret-42"), "\(text)") }
    }

    /// A WebSocket open that times out, and a stream URL that cannot be
    /// parsed, are reported without the socket token.
    @Test(arguments: ["silent", "invalid"])
    func socketFailuresHideTheToken(kind: String) async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let streamBase = kind == "silent" ? "ws://127.0.0.1:\(silent.port)/arcgis/ws/services/Test/StreamServer" : "ftp://h/arcgis/ws/services/Test/StreamServer"
        let service = try await ScriptedStreamService.start(
            description: { _ in HTTPServerResponse(text: ScriptedStreamService.descriptionJSON(socketBase: streamBase, token: "socket-secret-77")) },
            socket: { _, _ in .reject(status: 404, body: "") })
        let result = await connectAndCollect(service.serviceURL, quickOptions(token: "user-secret-42", socketTimeoutMilliseconds: 400))
        #expect(result.statuses.last?.status == .failed)
        #expect(result.lastError?.contains(kind == "silent" ? "timed out" : "invalid URL") == true, "\(result.lastError ?? "")")
        for text in shownTexts(result) {
            #expect(!text.contains("socket-secret-77") && !text.contains("user-secret-42"), "\(text)")
        }
        await service.shutdown()
    }

    /// After an https description, a plain ws:// stream URL does not get the
    /// token: the connection fails saying why, and the socket server sees no
    /// upgrade; allowing plaintext tokens explicitly sends it.
    @Test func plaintextStreamURLAfterHTTPSIsRefused() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let plain = try await ScriptedStreamService.start(description: { _ in HTTPServerResponse(status: 404, text: "{}") },
                                                          socket: { _, _ in .accept { socket in _ = await socket.closed() } })
        var configuration = ServerConfiguration()
        configuration.tls = certificate.tlsFiles
        let plainBase = plain.socketBase
        configuration.httpResponder = { request in
            HTTPServerResponse(text: ScriptedStreamService.descriptionJSON(socketBase: plainBase, token: request.queryValue("with") == nil ? "socket-secret-77" : nil))
        }
        let secure = try await TransportServer.start(configuration)
        let url = "\(secure.httpBase)/arcgis/rest/services/Test/StreamServer"

        let refused = await connectAndCollect(url, quickOptions(token: "user-secret-42"))
        #expect(refused.statuses.last?.status == .failed)
        #expect(refused.lastError?.contains("refusing to send the token over the plain ws://") == true, "\(refused.lastError ?? "")")
        #expect(refused.lastError?.contains("--allow-plaintext-token") == true)
        #expect(plain.upgrades.isEmpty)
        for text in shownTexts(refused) { #expect(!text.contains("socket-secret-77") && !text.contains("user-secret-42"), "\(text)") }

        // No credential at all: nothing to protect, ws:// is used.
        let anonymous = await connectAndCollect(url + "?with=none", quickOptions())
        #expect(anonymous.statuses.last?.status == .connected)
        #expect(plain.upgrades.count == 1 && plain.upgrades[0].queryValue("token") == nil)

        var allowing = quickOptions(token: "user-secret-42")
        allowing.allowsPlaintextToken = true
        let allowed = await connectAndCollect(url, allowing)
        #expect(allowed.statuses.last?.status == .connected)
        #expect(plain.upgrades.count == 2 && plain.upgrades[1].queryValue("token") == "socket-secret-77")
        await secure.shutdown()
        await plain.shutdown()
    }

    /// A redirect from https to plain http is not followed with the token (the
    /// plain server sees nothing), unless plaintext redirects are allowed.
    @Test func redirectToPlainHTTPIsRefused() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let plain = try await ScriptedStreamService.start(
            description: { HTTPServerResponse(text: ScriptedStreamService.descriptionJSON(socketBase: $0.socketBase)) },
            socket: { _, _ in .accept { socket in _ = await socket.closed() } })
        var configuration = ServerConfiguration()
        configuration.tls = certificate.tlsFiles
        let target = plain.serviceURL
        configuration.httpResponder = { request in
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return HTTPServerResponse(status: 302, headers: ["Location": "\(target)?\(query)"], text: "moved")
        }
        let secure = try await TransportServer.start(configuration)
        let url = "\(secure.httpBase)/arcgis/rest/services/Test/StreamServer"

        let refused = await connectAndCollect(url, quickOptions(token: "user-secret-42"))
        #expect(refused.statuses.last?.status == .failed)
        #expect(refused.lastError?.contains("refused to follow a redirect") == true, "\(refused.lastError ?? "")")
        #expect(plain.descriptionRequests.isEmpty)
        for text in shownTexts(refused) { #expect(!text.contains("user-secret-42"), "\(text)") }

        var allowing = quickOptions(token: "user-secret-42")
        allowing.http.allowsRedirectToPlaintext = true
        allowing.allowsPlaintextToken = true
        let allowed = await connectAndCollect(url, allowing)
        #expect(allowed.statuses.last?.status == .connected)
        #expect(plain.descriptionRequests.first?.queryValue("token") == "user-secret-42")
        await secure.shutdown()
        await plain.shutdown()
    }

    /// An HTML error page is reported on one line (its excerpt's line breaks become spaces).
    @Test func htmlErrorPageIsOneLine() async throws {
        var configuration = ServerConfiguration()
        configuration.httpResponder = { _ in
            HTTPServerResponse(status: 404, contentType: "text/html",
                               text: "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
        }
        let server = try await TransportServer.start(configuration)
        let result = await connectAndCollect("\(server.httpBase)/arcgis/rest/services/S/StreamServer", quickOptions())
        let error = try #require(result.statuses.last?.error)
        #expect(error.contains("404"))
        #expect(!error.contains("\n") && !error.contains("\r"), "\(error)")
        await server.shutdown()
    }
}
