import EntityStreamCore
import Transport

/// A client for one ArcGIS feature layer or table (`…/MapServer/0`,
/// `…/FeatureServer/0`): loads its description, then runs queries, paging
/// through results as ArcGIS clients do.
///
/// - ``description()`` loads `?f=json` once (``reloadDescription()`` again).
/// - ``pages(_:)`` is an `AsyncSequence` of ``FeatureSetPage``s: each page
///   is requested only when the consumer asks for it (so a million features
///   never sit in memory at once), with a stable order, by `resultOffset`
///   while the server says `exceededTransferLimit`, or — when the layer
///   cannot page — by `returnIdsOnly` then `objectIds` batches of at most
///   `maxRecordCount` (``FeatureQueryPager``). ``query(_:onPage:)`` does the
///   same with a callback and returns a ``FeatureQuerySummary``.
///   ``count(_:)`` and ``objectIDs(_:)`` send `returnCountOnly`/`returnIdsOnly`.
/// - Cancelling the calling task stops between requests and aborts the
///   request in flight (``FeatureLayerError/cancelled``).
/// - Tokens: sent as the `token` parameter (in the form body when a request
///   is long enough to be POSTed); on ArcGIS 498/499 the ``TokenSource`` is
///   asked once for another, else the call fails with
///   ``FeatureLayerError/tokenRejected(_:renewed:)``.
/// - Status: `connecting` before the first request (and after a failure),
///   `connected` once the server answered as ArcGIS (errors about the query
///   included), `failed` when it is unreachable, not ArcGIS, truncated its
///   answer or refused the token — through ``statusUpdates()`` and
///   ``FeatureLayerClientOptions/onStatus``, with ``displayURL`` (no token).
/// Every error is a ``FeatureLayerError`` that never contains the token.
public actor FeatureLayerClient {
    /// The layer URL as shown to users: no query, no token.
    public nonisolated let displayURL: String
    private let base: String
    private let extraParameters: [(String, String)]
    private let options: FeatureLayerClientOptions
    private let tokenSource: any TokenSource
    private let http: HTTPClient

    public private(set) var status: ConnectionStatus = .disconnected
    /// The last error that made the status `failed`.
    public private(set) var lastError: FeatureLayerError?
    private var cachedDescription: LayerDescription?
    private var listeners: [Int: AsyncStream<ConnectionStatusChange>.Continuation] = [:]
    private var nextListenerID = 0

    /// `layerURL` is the layer's REST URL; a query string in it is kept for
    /// every request (except `f`; a `token` there is used when the options
    /// give no token source). A trailing `/query` is dropped.
    /// - Throws: ``FeatureLayerError/invalidURL(_:)`` for a URL that is not http(s).
    public init(layerURL: String, options: FeatureLayerClientOptions = FeatureLayerClientOptions()) throws(FeatureLayerError) {
        let endpoint: ArcGISEndpoint
        do { endpoint = try ArcGISEndpoint(parsing: layerURL, droppingSuffix: "/query") } catch { throw .invalidURL(error.reason) }
        self.base = endpoint.base
        self.displayURL = endpoint.base
        self.extraParameters = endpoint.extraParameters
        self.options = options
        self.tokenSource = options.tokenSource ?? StaticTokenSource(endpoint.token)
        self.http = HTTPClient(configuration: options.http, eventLoop: options.eventLoop)
    }

    // MARK: Status

    /// Every status change from now on.
    public func statusUpdates() -> AsyncStream<ConnectionStatusChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionStatusChange.self)
        let id = nextListenerID
        nextListenerID += 1
        listeners[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeListener(id) }
        }
        return stream
    }

    private func removeListener(_ id: Int) { listeners[id] = nil }

    private func setStatus(_ newStatus: ConnectionStatus, error: String?) {
        guard newStatus != status else { return }
        status = newStatus
        let change = ConnectionStatusChange(status: newStatus, attempt: 0, url: displayURL, error: error, time: options.clock.now())
        options.onStatus?(change)
        for listener in listeners.values { listener.yield(change) }
    }

    private func failed(_ error: FeatureLayerError) -> FeatureLayerError {
        if error.isReachabilityFailure {
            lastError = error
            setStatus(.failed, error: error.description)
        }
        return error
    }

    // MARK: Description

    /// The layer description, loaded on first use.
    public func description() async throws(FeatureLayerError) -> LayerDescription {
        if let cachedDescription { return cachedDescription }
        return try await reloadDescription()
    }

    /// Loads the layer description again.
    @discardableResult
    public func reloadDescription() async throws(FeatureLayerError) -> LayerDescription {
        let response = try await send(path: nil, parameters: [("f", "json")])
        try checkComplete(response)
        let description: LayerDescription
        do {
            description = try LayerDescription(json: response.body)
        } catch {
            switch error {
            case .arcGIS(let arcGIS):
                setStatus(.connected, error: nil)
                throw .arcGIS(arcGIS, operation: "layer description request")
            case .notJSON: throw failed(classifyNonJSON(response))
            case .notALayer(let detail), .invalid(let detail): throw failed(.notALayer(url: displayURL, detail: detail))
            }
        }
        setStatus(.connected, error: nil)
        cachedDescription = description
        return description
    }

    // MARK: Queries

    /// The pages of `query`'s features, fetched as the sequence is iterated.
    public nonisolated func pages(_ query: FeatureQuery) -> FeatureQueryPages {
        FeatureQueryPages(client: self, query: query)
    }

    /// Runs `query`, handing each page to `onPage` before the next is
    /// requested. Throws a ``FeatureLayerError``, or what `onPage` throws.
    public nonisolated func query(_ query: FeatureQuery, onPage: (FeatureSetPage) async throws -> Void) async throws -> FeatureQuerySummary {
        var iterator = pages(query).makeAsyncIterator()
        while let page = try await iterator.next() {
            try await onPage(page)
        }
        return iterator.summary
    }

    /// How many features match `query` (`returnCountOnly`).
    public func count(_ query: FeatureQuery) async throws(FeatureLayerError) -> Int {
        var request = query
        request.returnCountOnly = true
        request.returnIDsOnly = false
        request.resultOffset = nil
        request.resultRecordCount = nil
        request.orderBy = []
        request.format = .json
        let response = try await send(path: "query", parameters: request.parameters)
        return try read(response, operation: "count query") { (bytes) throws(FeatureSetReadError) in try FeatureSetReader.count(bytes) }
    }

    /// The object ids of the features matching `query` (`returnIdsOnly`), in the server's order.
    public func objectIDs(_ query: FeatureQuery) async throws(FeatureLayerError) -> [Int64] {
        var request = query
        request.returnIDsOnly = true
        request.returnCountOnly = false
        request.outFields = []
        request.format = .json
        return try await fetchObjectIDs(request)
    }

    func fetchObjectIDs(_ request: FeatureQuery) async throws(FeatureLayerError) -> [Int64] {
        var request = request
        request.format = .json
        let response = try await send(path: "query", parameters: request.parameters)
        return try read(response, operation: "object-id query") { (bytes) throws(FeatureSetReadError) in try FeatureSetReader.objectIDs(bytes).ids }
    }

    func fetchPage(_ request: FeatureQuery, index: Int) async throws(FeatureLayerError) -> FeatureSetPage {
        var request = request
        request.format = .json
        let response = try await send(path: "query", parameters: request.parameters)
        let now = options.clock.now()
        return try read(response, operation: "query") { (bytes) throws(FeatureSetReadError) in try FeatureSetReader.page(bytes, index: index, receivedAt: now) }
    }

    // MARK: HTTP

    /// Sends one request (GET, or POST when the URL would be too long) with
    /// the token, renewing it once on 498/499. Status: connecting before,
    /// failed on a transport failure or a refused token.
    private func send(path: String?, parameters: [(String, String)]) async throws(FeatureLayerError) -> HTTPResponse {
        if status != .connected { setStatus(.connecting, error: nil) }
        var token = await tokenSource.token()
        var renewed = false
        while true {
            guard !Task.isCancelled else { throw .cancelled }
            let response = try await exchange(path: path, parameters: parameters, token: token)
            if let rejection = ArcGISResponse.tokenRejection(response) {
                if !renewed, case .renewed(let fresh) = await tokenSource.renewToken(rejected: token) {
                    token = fresh
                    renewed = true
                    continue
                }
                throw failed(.tokenRejected(rejection, renewed: renewed))
            }
            return response
        }
    }

    private func exchange(path: String?, parameters: [(String, String)], token: String?) async throws(FeatureLayerError) -> HTTPResponse {
        let url = path.map { "\(base)/\($0)" } ?? base
        let names = Set(parameters.map { Schema.fold($0.0) })
        var items = extraParameters.filter { !names.contains(Schema.fold($0.0)) } + parameters
        if let token { items.append(("token", token)) }
        let query = PercentEncoding.query(items)
        let request: HTTPRequest
        if url.utf8.count + 1 + query.utf8.count <= options.maximumGETLength {
            request = HTTPRequest(method: .get, url: "\(url)?\(query)")
        } else {
            request = .postForm(url, items)
        }
        do {
            return try await http.send(request)
        } catch {
            if case .cancelled = error { throw .cancelled }
            if Task.isCancelled { throw .cancelled }
            throw failed(.unreachable(url: displayURL, detail: ServiceURLs.redacted(error.description).redactingToken(token)))
        }
    }

    /// Reads a response body with `parse`, turning every failure into a
    /// ``FeatureLayerError``; `connected` on an ArcGIS answer.
    private func read<T>(_ response: HTTPResponse, operation: String,
                         _ parse: ([UInt8]) throws(FeatureSetReadError) -> T) throws(FeatureLayerError) -> T {
        try checkComplete(response)
        let expected = ArcGISResponse.contentLength(response)
        do {
            let value = try parse(response.body)
            setStatus(.connected, error: nil)
            return value
        } catch {
            switch error {
            case .arcGIS(let arcGIS):
                setStatus(.connected, error: nil)
                throw .arcGIS(arcGIS, operation: operation)
            case .notJSON:
                throw failed(classifyNonJSON(response))
            case .truncated(let bytes):
                throw failed(.truncated(url: displayURL, received: bytes, expected: expected))
            case .invalid(let detail):
                if !(200..<300).contains(response.status) {
                    throw failed(.httpStatus(url: displayURL, status: response.status, excerpt: ArcGISResponse.excerpt(response.body)))
                }
                throw failed(.invalidResponse(url: displayURL, detail: detail))
            }
        }
    }

    /// Throws ``FeatureLayerError/truncated(url:received:expected:)`` when the
    /// body is shorter than its `Content-Length`.
    private func checkComplete(_ response: HTTPResponse) throws(FeatureLayerError) {
        if let expected = ArcGISResponse.contentLength(response), response.body.count < expected {
            throw failed(.truncated(url: displayURL, received: response.body.count, expected: expected))
        }
    }


    /// A body that is not JSON: cut short, a server error status, or not ArcGIS at all.
    private func classifyNonJSON(_ response: HTTPResponse) -> FeatureLayerError {
        let body = response.body
        do throws(JSONError) { try JSONParser.validate(body) } catch {
            if case .truncated(let count) = FeatureSetReader.classify(error, body) {
                return .truncated(url: displayURL, received: count, expected: nil)
            }
        }
        if response.status >= 500 {
            return .httpStatus(url: displayURL, status: response.status, excerpt: ArcGISResponse.excerpt(body))
        }
        return .notArcGIS(url: displayURL, status: response.status, contentType: response.headers["content-type"],
                          excerpt: ArcGISResponse.excerpt(body))
    }

}
