import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamTransport
import EntityStreamFeatures
import EntityStream
import EntityStreamModel
import Foundation

/// A client for one ArcGIS geoprocessing task (`…/GPServer/<task>`), as an
/// asynchronous (`submitJob`) task is used: describe it, submit a job, read
/// its status and messages, fetch its results, cancel it. It holds no job
/// state: ``GPJobPoller`` decides when to call what.
///
/// - ``taskDescription()``: `GET <task>?f=json`.
/// - ``submitJob(_:)``: `POST <task>/submitJob` as a form, with `f=json`.
/// - ``job(_:)``: `GET <task>/jobs/<id>?f=json&returnMessages=true`.
/// - ``cancelJob(_:)``: `POST <task>/jobs/<id>/cancel` (`f=json`).
/// - ``result(_:parameter:)``: `GET <task>/jobs/<id>/results/<name>?f=json`.
/// - Tokens: sent as the `token` parameter (in the form body of POSTs); on
///   ArcGIS 498/499 the ``TokenSource`` is asked once for another, else the
///   call fails with ``ArcGISRequestError/tokenRejected(_:renewed:)`` (``ArcGISRequester``).
/// - Status: `connecting` before the first request (and after a failure),
///   `connected` once the server answered as ArcGIS, `failed` when it is
///   unreachable, not ArcGIS, truncated an answer or refused the token —
///   through one ``ConnectionStatusBroadcaster``: ``GeoprocessingClientOptions/onStatus``
///   (awaited before the request goes on), then ``statusUpdates()``, with ``displayURL``.
/// - Cancelling the calling task aborts the request in flight
///   (``GeoprocessingError/request(_:)`` with ``ArcGISRequestError/cancelled``).
/// Every error is a ``GeoprocessingError`` that never contains the token.
public actor GeoprocessingClient {
    /// The task URL as shown to users: no query, no token.
    public nonisolated let displayURL: String
    private let options: GeoprocessingClientOptions
    private let requester: ArcGISRequester
    public private(set) var status: ConnectionStatus = .disconnected
    private nonisolated let statuses: ConnectionStatusBroadcaster

    /// `taskURL` is the task's REST URL (spaces in it are encoded); a `token`
    /// in its query string is used when the options give no token source,
    /// other query items are ignored. A trailing `/submitJob` is dropped.
    /// - Throws: ``GeoprocessingError/invalidURL(_:)`` for a URL that is not http(s)
    ///   or whose query string is malformed (see ``ArcGISEndpoint``),
    ///   ``GeoprocessingError/notAGeoprocessingTask(redactedURL:)`` for one without `/GPServer/`.
    public init(taskURL: String, options: GeoprocessingClientOptions = GeoprocessingClientOptions()) throws(GeoprocessingError) {
        let endpoint: ArcGISEndpoint
        do throws(ArcGISEndpointError) { endpoint = try ArcGISEndpoint(parsing: taskURL.replacingSpaces(), droppingSuffix: "/submitJob") } catch {
            throw .invalidURL(error)
        }
        let base = endpoint.base
        guard base.range(of: "/GPServer/") != nil else {
            throw .notAGeoprocessingTask(redactedURL: ServiceURLs.redacted(base))
        }
        displayURL = base
        self.options = options
        requester = ArcGISRequester(endpoint: endpoint, keepingQueryItems: false, tokenSource: options.tokenSource,
                                    http: HTTPClient(configuration: options.http, eventLoop: options.eventLoop), maximumGETLength: nil)
        statuses = ConnectionStatusBroadcaster(relay: options.onStatus)
    }

    /// Every status change from now on (after ``GeoprocessingClientOptions/onStatus`` has had it).
    public nonisolated func statusUpdates() -> AsyncStream<ConnectionStatusChange> {
        statuses.updates()
    }

    // MARK: Operations

    /// The task's description and parameters.
    public func taskDescription() async throws(GeoprocessingError) -> GPTaskDescription {
        try await call(.get, path: nil, parameters: [("f", "json")], operation: "task description") { (bytes) throws(GPRESTError) in
            try GPTaskDescription(parsing: bytes)
        }
    }

    /// Submits a job with `parameters` (input parameters and `env:` settings; `f=json` is added).
    public func submitJob(_ parameters: [(String, String)]) async throws(GeoprocessingError) -> GPSubmitJobResponse {
        try await call(.post, path: "submitJob", parameters: parameters + [("f", "json")], operation: "submitJob") { (bytes) throws(GPRESTError) in
            try GPSubmitJobResponse(parsing: bytes)
        }
    }

    /// The job's status, messages and result links.
    public func job(_ id: String) async throws(GeoprocessingError) -> GPJobInfo {
        try await call(.get, path: "jobs/\(PercentEncoding.encode(id))", parameters: [("f", "json"), ("returnMessages", "true")],
                       operation: "job status") { (bytes) throws(GPRESTError) in try GPJobInfo(parsing: bytes) }
    }

    /// Asks the server to cancel the job; returns its status as the cancel answered it.
    public func cancelJob(_ id: String) async throws(GeoprocessingError) -> GPJobInfo {
        try await call(.post, path: "jobs/\(PercentEncoding.encode(id))/cancel", parameters: [("f", "json")],
                       operation: "cancel") { (bytes) throws(GPRESTError) in try GPJobInfo(parsing: bytes) }
    }

    /// One result parameter of a succeeded job.
    public func result(_ id: String, parameter: String) async throws(GeoprocessingError) -> GPResultParameter {
        try await call(.get, path: "jobs/\(PercentEncoding.encode(id))/results/\(PercentEncoding.encode(parameter))",
                       parameters: [("f", "json")], operation: "result \(parameter)") { (bytes) throws(GPRESTError) in
            try GPResultParameter(parsing: bytes)
        }
    }

    // MARK: HTTP

    private func setStatus(_ newStatus: ConnectionStatus, error: String?) async {
        guard newStatus != status else { return }
        status = newStatus
        await statuses.publish(ConnectionStatusChange(status: newStatus, attempt: 0, url: displayURL, error: error, time: options.clock.now()))
    }

    /// The request failure as the client's error; the status becomes `failed` when the service is unusable.
    private func failed(_ error: ArcGISRequestError) async -> GeoprocessingError {
        if error.isReachabilityFailure { await setStatus(.failed, error: error.description) }
        return .request(error)
    }

    /// Sends one request through the requester and reads its answer with `parse`.
    /// Status: connecting before, connected on an ArcGIS answer, failed when the service is unusable.
    private func call<T>(_ method: HTTPMethod, path: String?, parameters: [(String, String)], operation: String,
                         _ parse: ([UInt8]) throws(GPRESTError) -> T) async throws(GeoprocessingError) -> T {
        if status != .connected { await setStatus(.connecting, error: nil) }
        let answer: ArcGISAnswer
        do {
            answer = try await requester.send(method, path: path, parameters: parameters)
        } catch {
            throw await failed(error)
        }
        do {
            let value = try parse(answer.body)
            await setStatus(.connected, error: nil)
            return value
        } catch {
            switch error {
            case .service(let service):
                await setStatus(.connected, error: nil)
                throw .arcGIS(service, operation: operation)
            case .invalidJSON:
                throw await failed(answer.notJSON())
            default:
                throw await failed(answer.unexpected(error.description))
            }
        }
    }
}

extension String {
    /// Spaces encoded as `%20` (task names such as "911 Calls Hotspot").
    fileprivate func replacingSpaces() -> String {
        guard contains(" ") else { return self }
        return split(separator: " ", omittingEmptySubsequences: false).joined(separator: "%20")
    }
}
