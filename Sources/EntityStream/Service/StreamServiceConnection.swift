import EntityStreamCore
import Transport

/// The connection to one ArcGIS stream service: loads its description,
/// subscribes over WebSocket with the filter, decodes every message, and
/// reconnects by the Maps SDK's policy.
///
/// An actor. ``connect()`` and ``disconnect()`` are idempotent and safe at any
/// time; ``connect()`` returns once the status is `connected` or `failed`.
/// Status changes (`disconnected` → `connecting` → `connected`, `failed`)
/// go to the sink as bus events and to every ``statusUpdates()`` sequence.
/// Decoded messages go to the sink in receive batches; messages that cannot
/// be decoded are counted and reported as `error` events naming the byte
/// offset, and the stream goes on. ``setFilter(_:)`` changes the filter on
/// the open socket and resolves as applied, rejected or timed out.
public actor StreamServiceConnection {
    public nonisolated let serviceURL: String
    private var options: StreamConnectionOptions
    private let sink: any StreamConnectionSink
    private let clock: any EntityClock
    private let http: HTTPClient

    public private(set) var status: ConnectionStatus = .disconnected
    /// The service description, once loaded.
    public private(set) var serviceDescription: ServiceDescription?
    /// The schema observations are decoded with (grows as fields are learned).
    public private(set) var schema: Schema?
    /// Why the last attempt failed, if it did.
    public private(set) var lastError: String?
    /// Messages that could not be decoded so far.
    public private(set) var undecodableMessageCount = 0
    /// The filter in effect (or to be sent at the next connection).
    public var filter: StreamFilter { options.filter }

    private var reconnect: ReconnectState
    private var attempt = 0
    private var currentURL: String?
    private var socket: WebSocketConnection?
    private var runner: Task<Void, Never>?
    private var generation = 0
    private var urlRotation = 0
    private var usedSocketToken: String?
    /// The last description was fetched over https (after any redirects).
    private var descriptionCameOverTLS = false
    private var outcomeWaiters: [CheckedContinuation<ConnectionStatus, Never>] = []
    private var listeners: [Int: AsyncStream<ConnectionStatusChange>.Continuation] = [:]
    private var nextListenerID = 0
    private var pendingFilters: [PendingFilter] = []
    private var nextFilterID = 0

    private struct PendingFilter {
        let id: Int
        let filter: StreamFilter
        let continuation: CheckedContinuation<FilterOutcome, Never>
        let timeout: Task<Void, Never>
    }

    private enum AttemptEnd {
        case closed(CloseInfo)
        case failed(String, closeCode: UInt16?, final: Bool)
    }

    public init(serviceURL: String, options: StreamConnectionOptions = .init(), sink: any StreamConnectionSink) {
        self.serviceURL = serviceURL
        self.options = options
        self.sink = sink
        self.clock = options.clock
        self.http = HTTPClient(configuration: options.http, eventLoop: options.eventLoop)
        self.reconnect = ReconnectState(policy: options.reconnectPolicy)
    }

    // MARK: Status

    /// A sequence of every status change from now on.
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

    private func setStatus(_ newStatus: ConnectionStatus, error: String?) async {
        status = newStatus
        let error = error.map(redacted)
        let change = ConnectionStatusChange(status: newStatus, attempt: attempt, url: currentURL.map(ServiceURLs.redacted),
                                            error: error, time: clock.now())
        // On the bus first, so whoever reacts to the change finds the event already queued.
        await sink.publish(StreamEvent(time: change.time, payload: .status(change)))
        for listener in listeners.values { listener.yield(change) }
        if newStatus != .connecting {
            let waiters = outcomeWaiters
            outcomeWaiters = []
            for waiter in waiters { waiter.resume(returning: newStatus) }
        }
    }

    // MARK: Connect and disconnect

    /// Connects (if not already connected or connecting) and returns the
    /// resulting status: `connected`, or `failed` once reconnection gave up
    /// (or `disconnected` if ``disconnect()`` intervened).
    @discardableResult
    public func connect() async -> ConnectionStatus {
        if status == .connected { return .connected }
        if runner == nil {
            generation += 1
            reconnect.start()
            attempt = 0
            lastError = nil
            let generation = self.generation
            runner = Task { await self.run(generation: generation) }
        }
        return await withCheckedContinuation { outcomeWaiters.append($0) }
    }

    /// Closes the socket (code 1000), stops reconnecting, and sets the status
    /// to `disconnected`. Safe at any time; does nothing when already disconnected.
    public func disconnect() async {
        guard let runner else {
            if status == .failed {
                currentURL = nil
                await setStatus(.disconnected, error: nil)
            }
            return
        }
        self.runner = nil
        generation += 1
        runner.cancel()
        if let socket {
            self.socket = nil
            await socket.close(code: 1000, reason: "client disconnecting")
        }
        await runner.value
        failPendingFilters(reason: "disconnected")
        currentURL = nil
        await setStatus(.disconnected, error: nil)
    }

    // MARK: The connection loop

    private func run(generation: Int) async {
        var requireNewToken = false
        await setStatus(.connecting, error: nil)
        while true {
            let end = await attemptConnection(requireNewToken: requireNewToken)
            requireNewToken = false
            guard !Task.isCancelled && generation == self.generation else { return }
            let closeCode: UInt16?
            switch end {
            case .closed(let info):
                lastError = redacted("server closed the connection (\(info.code.map(String.init) ?? "no code")\(info.reason.isEmpty ? "" : ": \(info.reason)"))")
                closeCode = info.code
            case .failed(let message, let code, let final):
                lastError = redacted(message)
                closeCode = code
                if final {
                    runner = nil
                    await setStatus(.failed, error: message)
                    return
                }
            }
            switch reconnect.next(closeCode: closeCode) {
            case .giveUp:
                runner = nil
                await setStatus(.failed, error: lastError)
                return
            case .retry(let next, let delay):
                attempt = next
                await setStatus(.connecting, error: lastError)
                if delay > 0 {
                    do { try await clock.sleep(milliseconds: delay) } catch { return }
                    guard generation == self.generation else { return }
                }
            case .retryIfTokenChanged(let next):
                attempt = next
                requireNewToken = true
                await setStatus(.connecting, error: lastError)
            }
        }
    }

    private func attemptConnection(requireNewToken: Bool) async -> AttemptEnd {
        let description: ServiceDescription
        do {
            description = try await loadDescription()
        } catch {
            return .failed(error.description, closeCode: nil, final: attempt == 0 && !isTransient(error))
        }
        let socketToken = description.webSocketEntry?.token ?? options.token
        if requireNewToken && socketToken == usedSocketToken {
            return .failed("\(lastError ?? "not authorized"); the service description offers no new token", closeCode: nil, final: true)
        }
        let schema: Schema
        do {
            schema = try description.schema(trackIDFieldOverride: options.trackIDField)
        } catch {
            return .failed(error.description, closeCode: nil, final: true)
        }
        if let whereText = options.filter.effectiveWhereClause {
            do {
                _ = try WhereClause(whereText, schema: schema)
            } catch {
                return .failed("invalid --where: \(error)", closeCode: nil, final: true)
            }
        }
        serviceDescription = description
        await sink.descriptionLoaded(description)
        if self.schema != schema {
            self.schema = schema
            await sink.schemaChanged(schema)
        }
        let urls = description.webSocketURLs
        guard !urls.isEmpty else { return .failed(ServiceDescriptionError.missingStreamURLs.description, closeCode: nil, final: true) }
        let base = urls[urlRotation % urls.count]
        urlRotation += 1
        let url = ServiceURLs.subscribeURL(base: base, token: socketToken, filter: options.filter)
        if let refusal = plaintextTokenRefusal(streamURL: base, token: socketToken) {
            return .failed(refusal, closeCode: nil, final: true)
        }
        currentURL = url
        usedSocketToken = socketToken

        let connection: WebSocketConnection
        do {
            connection = try await WebSocketClient.connect(to: url, configuration: options.webSocket, eventLoop: options.eventLoop)
        } catch {
            let final: Bool
            if case .handshakeRejected(let status) = error { final = status == 404 && attempt == 0 } else { final = false }
            if case .invalidURL = error { return .failed(error.description, closeCode: nil, final: true) }
            return .failed(error.description, closeCode: nil, final: final)
        }
        if Task.isCancelled {
            await connection.close(code: 1000, reason: "client disconnecting")
            return .failed("cancelled", closeCode: nil, final: false)
        }
        socket = connection
        reconnect.connectionEstablished()
        let connectedAt = clock.now()
        await setStatus(.connected, error: nil)
        let end = await receive(from: connection, schema: schema)
        socket = nil
        reconnect.connectionEnded(afterBeingUpFor: clock.now() - connectedAt)
        failPendingFilters(reason: "the connection closed before the server answered")
        return end
    }

    /// Why the token must not go to `streamURL`: a plain `ws://` URL after
    /// the user asked for https or the description came over it, unless
    /// plaintext tokens are allowed. Nil when sending is fine.
    private func plaintextTokenRefusal(streamURL: String, token: String?) -> String? {
        guard let token, !token.isEmpty, !options.allowsPlaintextToken,
              streamURL.lowercased().hasPrefix("ws://"),
              serviceURL.lowercased().hasPrefix("https://") || descriptionCameOverTLS else { return nil }
        return "refusing to send the token over the plain ws:// stream URL \(redacted(streamURL)) given by a service description loaded over https; "
            + "allow it explicitly (--allow-plaintext-token) only if the network is trusted"
    }

    /// `text` without any credential this connection knows or that looks like one.
    private func redacted(_ text: String) -> String {
        Redaction.redact(text, secrets: [options.token, usedSocketToken])
    }

    private func isTransient(_ error: ServiceDescriptionError) -> Bool {
        if case .httpStatus(let status, _) = error { return status >= 500 }
        return false
    }

    private func loadDescription() async throws(ServiceDescriptionError) -> ServiceDescription {
        let url = ServiceURLs.descriptionURL(service: serviceURL, token: options.token)
        let response: HTTPResponse
        do {
            response = try await http.get(url)
        } catch {
            throw .requestFailed(detail: error.description)
        }
        guard response.status == 200 else {
            // ArcGIS answers some errors as its JSON error object with a non-200 status: report its words.
            do { _ = try ServiceDescription(json: response.body) } catch {
                if case .arcGISError = error { throw error }
            }
            throw .httpStatus(response.status, excerpt: OneLine.text(response.text, maximumLength: 120))
        }
        descriptionCameOverTLS = response.url.lowercased().hasPrefix("https://")
        return try ServiceDescription(json: response.body)
    }

    // MARK: Receiving

    private func receive(from connection: WebSocketConnection, schema: Schema) async -> AttemptEnd {
        var decoder = EsriFeatureDecoder(schema: schema)
        var messages: [StreamMessage] = []
        do {
            for try await batch in connection.inbound {
                let now = clock.now()
                await sink.rawBatch(batch, receivedAt: now)
                messages.removeAll(keepingCapacity: true)
                var start = 0
                for end in batch.ends {
                    do {
                        try decoder.decode(batch.bytes, range: start..<end, receivedAt: now, into: &messages)
                    } catch {
                        // Keep the error in its place: hand over what came before it first.
                        await handOver(&messages, decoder: decoder)
                        undecodableMessageCount += 1
                        await sink.publish(StreamEvent(time: now, payload: .error(StreamErrorReport(
                            source: .message, message: "message skipped: \(error)", count: undecodableMessageCount))))
                    }
                    start = end
                }
                await handOver(&messages, decoder: decoder)
            }
        } catch {
            return .failed(error.description, closeCode: nil, final: false)
        }
        switch await connection.closed() {
        case .success(let info): return .closed(info)
        case .failure(let error): return .failed(error.description, closeCode: nil, final: false)
        }
    }

    /// Passes decoded messages on: schema first if it grew, filter replies to
    /// their waiting requests, the rest to the sink.
    private func handOver(_ messages: inout [StreamMessage], decoder: EsriFeatureDecoder) async {
        if decoder.schema != schema {
            schema = decoder.schema
            await sink.schemaChanged(decoder.schema)
        }
        guard !messages.isEmpty else { return }
        if messages.contains(where: { if case .filterReply = $0 { return true } else { return false } }) {
            for message in messages {
                if case .filterReply(let reply) = message { await resolveFilter(reply: reply) }
            }
        }
        await sink.receive(messages)
        messages.removeAll(keepingCapacity: true)
    }

    // MARK: Filters

    /// Changes the filter. On an open socket the `{"filter":…}` message is sent
    /// and the server's reply resolves it (applied or rejected; no reply within
    /// the timeout: timed out). Without a connection the filter is kept for the
    /// next one and reported applied. An invalid where clause, or a change of
    /// `outSpatialReference` (fixed for a socket's life), is rejected locally.
    /// Every outcome is also published as a `filter` event.
    @discardableResult
    public func setFilter(_ filter: StreamFilter) async -> FilterOutcome {
        let outcome = await changeFilter(filter)
        await sink.publish(StreamEvent(time: clock.now(), payload: .filter(outcome)))
        return outcome
    }

    private func changeFilter(_ filter: StreamFilter) async -> FilterOutcome {
        if let schema, let whereText = filter.effectiveWhereClause {
            do { _ = try WhereClause(whereText, schema: schema) } catch {
                return FilterOutcome(result: .rejected, requested: filter, error: "invalid where clause: \(error)")
            }
        }
        if filter.outSpatialReference != options.filter.outSpatialReference && socket != nil {
            return FilterOutcome(result: .rejected, requested: filter,
                                 error: "outSR is fixed for the life of a socket; reconnect to change it")
        }
        guard let socket else {
            options.filter = filter
            return FilterOutcome(result: .applied, requested: filter, error: nil)
        }
        let id = nextFilterID
        nextFilterID += 1
        let timeoutMilliseconds = options.filterReplyTimeoutMilliseconds
        let clock = self.clock
        return await withCheckedContinuation { continuation in
            let timeout = Task { [weak self] in
                do { try await clock.sleep(milliseconds: timeoutMilliseconds) } catch { return }
                await self?.filterTimedOut(id: id)
            }
            pendingFilters.append(PendingFilter(id: id, filter: filter, continuation: continuation, timeout: timeout))
            Task {
                do {
                    try await socket.send(filter.filterMessage())
                } catch {
                    self.filterSendFailed(id: id, error: "\(error)")
                }
            }
        }
    }

    private func resolveFilter(reply: JSONObject) async {
        guard !pendingFilters.isEmpty else {
            // An unrequested filter message: report it as the filter in effect.
            await sink.publish(StreamEvent(time: clock.now(), payload: .filter(FilterOutcome(
                result: .applied, requested: options.filter, reply: .object(reply), error: nil))))
            return
        }
        let pending = pendingFilters.removeFirst()
        pending.timeout.cancel()
        if let error = reply["error"], !error.isNull, error != .array([]) {
            let text = error.arrayValue.map { $0.map { $0.stringValue ?? "\($0)" }.joined(separator: ", ") }
                ?? error.stringValue ?? error["message"]?.stringValue ?? "\(error)"
            pending.continuation.resume(returning: FilterOutcome(result: .rejected, requested: pending.filter, reply: .object(reply), error: text))
        } else {
            options.filter = pending.filter
            pending.continuation.resume(returning: FilterOutcome(result: .applied, requested: pending.filter, reply: .object(reply), error: nil))
        }
    }

    private func filterTimedOut(id: Int) {
        guard let index = pendingFilters.firstIndex(where: { $0.id == id }) else { return }
        let pending = pendingFilters.remove(at: index)
        let seconds = Double(options.filterReplyTimeoutMilliseconds) / 1000
        pending.continuation.resume(returning: FilterOutcome(result: .timedOut, requested: pending.filter,
                                                             error: "the server did not answer within \(seconds) s"))
    }

    private func filterSendFailed(id: Int, error: String) {
        guard let index = pendingFilters.firstIndex(where: { $0.id == id }) else { return }
        let pending = pendingFilters.remove(at: index)
        pending.timeout.cancel()
        pending.continuation.resume(returning: FilterOutcome(result: .rejected, requested: pending.filter, error: "could not send: \(error)"))
    }

    private func failPendingFilters(reason: String) {
        let pending = pendingFilters
        pendingFilters = []
        for entry in pending {
            entry.timeout.cancel()
            entry.continuation.resume(returning: FilterOutcome(result: .rejected, requested: entry.filter, error: reason))
        }
    }
}
