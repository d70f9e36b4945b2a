import EntityStreamCore
import EntityStreamTransport
import EntityStreamFeatures
import EntityStreamModel

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
///   request in flight (``FeatureLayerError/request(_:)`` with ``ArcGISRequestError/cancelled``).
/// - Tokens: sent as the `token` parameter (in the form body when a request
///   is long enough to be POSTed); on ArcGIS 498/499 the ``TokenSource`` is
///   asked once for another, else the call fails with
///   ``ArcGISRequestError/tokenRejected(_:renewed:)`` (``ArcGISRequester``).
/// - Status: `connecting` before the first request (and after a failure),
///   `connected` once the server answered as ArcGIS (errors about the query
///   included), `failed` when it is unreachable, not ArcGIS, truncated its
///   answer or refused the token — through one ``ConnectionStatusBroadcaster``:
///   ``FeatureLayerClientOptions/onStatus`` (awaited before the request goes
///   on), then ``statusUpdates()``, with ``displayURL`` (no token).
/// Every error is a ``FeatureLayerError`` that never contains the token.
public actor FeatureLayerClient {
    /// The layer URL as shown to users: no query, no token.
    public nonisolated let displayURL: String
    private let options: FeatureLayerClientOptions
    private let requester: ArcGISRequester

    public private(set) var status: ConnectionStatus = .disconnected
    /// The last error that made the status `failed`.
    public private(set) var lastError: FeatureLayerError?
    private var cachedDescription: LayerDescription?
    private nonisolated let statuses: ConnectionStatusBroadcaster

    /// `layerURL` is the layer's REST URL; a query string in it is kept for
    /// every request (except `f`; a `token` there is used when the options
    /// give no token source). A trailing `/query` is dropped.
    /// - Throws: ``FeatureLayerError/invalidURL(_:)`` for a URL that is not http(s).
    public init(layerURL: String, options: FeatureLayerClientOptions = FeatureLayerClientOptions()) throws(FeatureLayerError) {
        let endpoint: ArcGISEndpoint
        do throws(ArcGISEndpointError) { endpoint = try ArcGISEndpoint(parsing: layerURL, droppingSuffix: "/query") } catch { throw .invalidURL(error) }
        self.displayURL = endpoint.base
        self.options = options
        self.requester = ArcGISRequester(endpoint: endpoint, keepingQueryItems: true, tokenSource: options.tokenSource,
                                         http: HTTPClient(configuration: options.http, eventLoop: options.eventLoop),
                                         maximumGETLength: options.maximumGETLength)
        self.statuses = ConnectionStatusBroadcaster(relay: options.onStatus)
    }

    // MARK: Status

    /// Every status change from now on (after ``FeatureLayerClientOptions/onStatus`` has had it).
    public nonisolated func statusUpdates() -> AsyncStream<ConnectionStatusChange> {
        statuses.updates()
    }

    private func setStatus(_ newStatus: ConnectionStatus, error: String?) async {
        guard newStatus != status else { return }
        status = newStatus
        await statuses.publish(ConnectionStatusChange(status: newStatus, attempt: 0, url: displayURL, error: error, time: options.clock.now()))
    }

    private func failed(_ error: FeatureLayerError) async -> FeatureLayerError {
        if error.isReachabilityFailure {
            lastError = error
            await setStatus(.failed, error: error.description)
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
        let answer = try await send(path: nil, parameters: [("f", "json")])
        let description: LayerDescription
        do {
            description = try LayerDescription(json: answer.body)
        } catch {
            switch error {
            case .arcGIS(let arcGIS):
                await setStatus(.connected, error: nil)
                throw .arcGIS(arcGIS, operation: "layer description request")
            case .notJSON: throw await failed(.request(answer.notJSON()))
            case .notALayer(let detail): throw await failed(.notALayer(url: displayURL, detail: detail))
            case .fields(let fields): throw await failed(.malformedFields(url: displayURL, fields))
            }
        }
        await setStatus(.connected, error: nil)
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
        let answer = try await send(path: "query", parameters: request.parameters)
        return try await read(answer, operation: "count query") { (bytes) throws(FeatureSetReadError) in try FeatureSetReader.count(bytes) }
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
        let answer = try await send(path: "query", parameters: request.parameters)
        return try await read(answer, operation: "object-id query") { (bytes) throws(FeatureSetReadError) in try FeatureSetReader.objectIDs(bytes).ids }
    }

    func fetchPage(_ request: FeatureQuery, index: Int) async throws(FeatureLayerError) -> FeatureSetPage {
        var request = request
        request.format = .json
        let answer = try await send(path: "query", parameters: request.parameters)
        let now = options.clock.now()
        return try await read(answer, operation: "query") { (bytes) throws(FeatureSetReadError) in try FeatureSetReader.page(bytes, index: index, receivedAt: now) }
    }

    // MARK: HTTP

    /// Sends one request through the requester (GET, or POST when the URL
    /// would be too long). Status: connecting before, failed on a transport
    /// failure, a truncated body or a refused token.
    private func send(path: String?, parameters: [(String, String)]) async throws(FeatureLayerError) -> ArcGISAnswer {
        if status != .connected { await setStatus(.connecting, error: nil) }
        do {
            return try await requester.send(.get, path: path, parameters: parameters)
        } catch {
            throw await failed(.request(error))
        }
    }

    /// Reads an answer's body with `parse`, turning every failure into a
    /// ``FeatureLayerError``; `connected` on an ArcGIS answer.
    private func read<T>(_ answer: ArcGISAnswer, operation: String,
                         _ parse: ([UInt8]) throws(FeatureSetReadError) -> T) async throws(FeatureLayerError) -> T {
        do {
            let value = try parse(answer.body)
            await setStatus(.connected, error: nil)
            return value
        } catch {
            switch error {
            case .arcGIS(let arcGIS):
                await setStatus(.connected, error: nil)
                throw .arcGIS(arcGIS, operation: operation)
            case .notJSON:
                throw await failed(.request(answer.notJSON()))
            case .truncated(let bytes):
                throw await failed(.request(answer.cutShort(after: bytes)))
            case .invalid(let detail):
                throw await failed(.request(answer.unexpected(detail)))
            case .fields(let fields):
                throw await failed(.request(answer.unexpected(fields.description)))
            }
        }
    }
}
