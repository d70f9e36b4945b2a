/// An HTTP/1.1 client over libwebsockets for `http://` and `https://`.
///
/// Every call returns the whole response or throws a ``TransportError``:
/// connect failures as for WebSockets, ``TransportError/timedOut(operation:seconds:)``,
/// ``TransportError/bodyTooLarge(limit:)``, ``TransportError/tooManyRedirects(limit:)``.
/// Redirects (301, 302, 303, 307, 308) are followed up to the configured
/// limit; 303 (and 301/302 after a POST) continue as GET. A redirect from
/// `https` to plain `http` throws ``TransportError/insecureRedirect(from:to:)``
/// unless ``HTTPClientConfiguration/allowsRedirectToPlaintext``: the request
/// (its query's token, its headers) would travel unencrypted. Any status,
/// including 4xx and 5xx, is a response, not an error. Cancelling the
/// calling task ends the request with ``TransportError/cancelled``. Sendable.
public struct HTTPClient: Sendable {
    public var configuration: HTTPClientConfiguration
    public let eventLoop: TransportEventLoop

    public init(configuration: HTTPClientConfiguration = .init(), eventLoop: TransportEventLoop = .shared) {
        self.configuration = configuration
        self.eventLoop = eventLoop
    }

    /// GET `url`.
    public func get(_ url: String, headers: HTTPHeaders = [:]) async throws(TransportError) -> HTTPResponse {
        try await send(HTTPRequest(method: .get, url: url, headers: headers))
    }

    /// POST `fields` form-encoded to `url`.
    public func postForm(_ url: String, _ fields: [(String, String)], headers: HTTPHeaders = [:]) async throws(TransportError) -> HTTPResponse {
        try await send(.postForm(url, fields, headers: headers))
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let timeout = configuration.timeout
        let deadline = ContinuousClock.now + timeout
        var current = request
        var url = try TransportURL(request.url)
        var redirects = 0
        while true {
            guard !url.isWebSocket else { throw .invalidURL(current.url, reason: "expected an http:// or https:// URL") }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw .timedOut(operation: "HTTP \(request.method.rawValue) \(request.url)", seconds: seconds(timeout)) }
            var response = try await exchange(current, url: url, timeout: remaining, totalTimeout: timeout)
            response.url = url.description
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] else {
                return response
            }
            redirects += 1
            guard redirects <= configuration.maximumRedirects else { throw .tooManyRedirects(limit: configuration.maximumRedirects) }
            let next = try url.resolving(location)
            if url.usesTLS && !next.usesTLS && !configuration.allowsRedirectToPlaintext {
                throw .insecureRedirect(from: url.description, to: next.description)
            }
            url = next
            current.url = url.description
            if response.status == 303 || (current.method == .post && response.status <= 302) {
                current.method = .get
                current.body = []
            }
        }
    }

    /// One request/response within `timeout` (the host name lookup included),
    /// as two child tasks racing (see ``Deadline``).
    private func exchange(_ request: HTTPRequest, url: TransportURL, timeout: Duration, totalTimeout: Duration) async throws(TransportError) -> HTTPResponse {
        let configuration = self.configuration
        let eventLoop = self.eventLoop
        return try await Deadline.run(
            within: timeout,
            timedOut: .timedOut(operation: "HTTP \(request.method.rawValue) \(url)", seconds: seconds(totalTimeout))
        ) { () throws(TransportError) in
            let address = try await AddressResolver.resolve(url.host)
            return try await Self.send(request, url: url, address: address, configuration: configuration, eventLoop: eventLoop)
        }
    }

    private static func send(_ request: HTTPRequest, url: TransportURL, address: String, configuration: HTTPClientConfiguration,
                             eventLoop: TransportEventLoop) async throws(TransportError) -> HTTPResponse {
        let (loop, dispatcher) = try await eventLoop.running()
        let (_, result) = await ClientConnectAttempts.run(makeSession: {
            ClientHTTPSession(id: eventLoop.makeSessionID(), request: request, url: url, address: address,
                              configuration: configuration, dispatcher: dispatcher)
        }) { session in await exchange(session, loop: loop) }
        return try result.get()
    }

    private static func exchange(_ session: ClientHTTPSession, loop: ServiceLoop) async -> Result<HTTPResponse, TransportError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let accepted = loop.execute {
                    guard let context = loop.context else { return continuation.resume(returning: .failure(.shutDown)) }
                    session.start(context: context, continuation: continuation)
                }
                if !accepted { continuation.resume(returning: .failure(.shutDown)) }
            }
        } onCancel: {
            loop.execute { session.fail(.cancelled) }
        }
    }
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
