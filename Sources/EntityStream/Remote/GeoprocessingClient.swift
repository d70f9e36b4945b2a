import EntityStreamCore
import HotSpots
import Transport

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
///   call fails with ``GeoprocessingError/tokenRejected(_:renewed:)``.
/// - Status: `connecting` before the first request (and after a failure),
///   `connected` once the server answered as ArcGIS, `failed` when it is
///   unreachable, not ArcGIS, truncated an answer or refused the token —
///   through ``GeoprocessingClientOptions/onStatus`` with ``displayURL``.
/// - Cancelling the calling task aborts the request in flight
///   (``GeoprocessingError/cancelled``).
/// Every error is a ``GeoprocessingError`` that never contains the token.
public actor GeoprocessingClient {
    /// The task URL as shown to users: no query, no token.
    public nonisolated let displayURL: String
    private let base: String
    private let options: GeoprocessingClientOptions
    private let tokenSource: any TokenSource
    private let http: HTTPClient
    public private(set) var status: ConnectionStatus = .disconnected

    /// `taskURL` is the task's REST URL (spaces in it are encoded); a `token`
    /// in its query string is used when the options give no token source,
    /// other query items are ignored. A trailing `/submitJob` is dropped.
    /// - Throws: ``GeoprocessingError/invalidURL(_:)`` for a URL that is not http(s)
    ///   or whose query string is malformed (see ``ArcGISEndpoint``).
    public init(taskURL: String, options: GeoprocessingClientOptions = GeoprocessingClientOptions()) throws(GeoprocessingError) {
        let endpoint: ArcGISEndpoint
        do { endpoint = try ArcGISEndpoint(parsing: taskURL.replacingSpaces(), droppingSuffix: "/submitJob") } catch { throw .invalidURL(error.reason) }
        let base = endpoint.base
        guard base.range(of: "/GPServer/") != nil else {
            throw .invalidURL("'\(ServiceURLs.redacted(base))' is not a geoprocessing task (…/GPServer/<task>)")
        }
        self.base = base
        displayURL = base
        self.options = options
        tokenSource = options.tokenSource ?? StaticTokenSource(endpoint.token)
        http = HTTPClient(configuration: options.http, eventLoop: options.eventLoop)
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

    private func setStatus(_ newStatus: ConnectionStatus, error: String?) {
        guard newStatus != status else { return }
        status = newStatus
        options.onStatus?(ConnectionStatusChange(status: newStatus, attempt: 0, url: displayURL, error: error, time: options.clock.now()))
    }

    private func failed(_ error: GeoprocessingError) -> GeoprocessingError {
        if error.isReachabilityFailure { setStatus(.failed, error: error.description) }
        return error
    }

    /// Sends one request with the token (renewed once on 498/499) and reads its answer with `parse`.
    private func call<T>(_ method: HTTPMethod, path: String?, parameters: [(String, String)], operation: String,
                         _ parse: ([UInt8]) throws(GPRESTError) -> T) async throws(GeoprocessingError) -> T {
        if status != .connected { setStatus(.connecting, error: nil) }
        var token = await tokenSource.token()
        var renewed = false
        while true {
            guard !Task.isCancelled else { throw .cancelled }
            let response = try await exchange(method, path: path, parameters: parameters, token: token)
            if let rejection = ArcGISResponse.tokenRejection(response) {
                if !renewed, case .renewed(let fresh) = await tokenSource.renewToken(rejected: token) {
                    token = fresh
                    renewed = true
                    continue
                }
                throw failed(.tokenRejected(rejection, renewed: renewed))
            }
            return try read(response, operation: operation, token: token, parse)
        }
    }

    private func exchange(_ method: HTTPMethod, path: String?, parameters: [(String, String)], token: String?) async throws(GeoprocessingError) -> HTTPResponse {
        let url = path.map { "\(base)/\($0)" } ?? base
        var items = parameters
        if let token { items.append(("token", token)) }
        let request = method == .post ? HTTPRequest.postForm(url, items) : HTTPRequest(method: .get, url: "\(url)?\(PercentEncoding.query(items))")
        do {
            return try await http.send(request)
        } catch {
            if case .cancelled = error { throw .cancelled }
            if Task.isCancelled { throw .cancelled }
            throw failed(.unreachable(url: displayURL, detail: ServiceURLs.redacted(error.description).redactingToken(token)))
        }
    }

    private func read<T>(_ response: HTTPResponse, operation: String, token: String?,
                         _ parse: ([UInt8]) throws(GPRESTError) -> T) throws(GeoprocessingError) -> T {
        let body = response.body
        if let expected = ArcGISResponse.contentLength(response), body.count < expected {
            throw failed(.truncated(url: displayURL, received: body.count, expected: expected))
        }
        do {
            let value = try parse(body)
            setStatus(.connected, error: nil)
            return value
        } catch {
            switch error {
            case .service(let service):
                setStatus(.connected, error: nil)
                throw .arcGIS(ArcGISError(code: service.code, message: service.message, details: service.details), operation: operation)
            case .invalidJSON:
                if response.status >= 500 {
                    throw failed(.httpStatus(url: displayURL, status: response.status, excerpt: ArcGISResponse.excerpt(body)))
                }
                if let first = body.first(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                    throw failed(.truncated(url: displayURL, received: body.count, expected: nil))
                }
                throw failed(.notArcGIS(url: displayURL, status: response.status, contentType: response.headers["content-type"],
                                        excerpt: ArcGISResponse.excerpt(body)))
            default:
                if !(200..<300).contains(response.status) {
                    throw failed(.httpStatus(url: displayURL, status: response.status, excerpt: ArcGISResponse.excerpt(body)))
                }
                throw failed(.invalidResponse(url: displayURL, detail: error.description.redactingToken(token)))
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
