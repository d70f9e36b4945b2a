import EntityStreamCore
import EntityStreamLocking
import EntityStreamTransport
import EntityStreamModel
import EntityStreamWhere

/// The connection to one ArcGIS stream service: loads its description,
/// subscribes over WebSocket with the filter, decodes every message, and
/// reconnects by the Maps SDK's policy.
///
/// An actor, the I/O shell of a ``StreamConnectionStateMachine``: every
/// change of state is the machine's, made before any suspension, so calls
/// may interleave freely. ``connect()`` and ``disconnect()`` are idempotent
/// and safe at any time; ``connect()`` returns once the status is
/// `connected` or `failed` (or `disconnected` if a disconnect intervened); a
/// connect during a disconnect's teardown waits for it, then connects. The
/// attempts of one `connect()` (an episode) run in one task the actor owns
/// and a disconnect cancels and awaits. Status changes (`disconnected` →
/// `connecting` → `connected`, `failed`) go to the sink as bus events and to
/// every ``statusUpdates()`` sequence. Decoded messages go to the sink in
/// receive batches; messages that cannot be decoded are counted and
/// reported as `error` events naming the byte offset, and the stream goes
/// on. ``setFilter(_:)`` changes the filter on the open socket and resolves
/// as applied, rejected or timed out; filter messages leave in call order.
///
/// Buddy services (the description's optional members, as the ArcGIS JS
/// StreamLayer uses them):
/// - `relatedFeatures`: the static rows are fetched once (``RelatedFeaturesLoader``;
///   a failure is an `error` event with source `related` and is retried at
///   the next connection attempt) and joined to every observation by the
///   join field (``RelatedFeatureJoin``); the schema gains the related fields.
/// - `keepLatestArchive`: before the socket opens, the archive is queried
///   with the filter (``ArchivePrimer``) and its features go to the sink as
///   primed observations ahead of any live message. Once per ``connect()``
///   (the first attempt that primes successfully): reconnects after a drop
///   do not prime again, so a track never gets the archive's row twice per
///   connect. A failure is an `error` event with source `archive`, and the
///   connection goes on to the socket (priming is tried again at the next
///   attempt of the same connect, if there is one).
public actor StreamServiceConnection {
    public nonisolated let serviceURL: String
    private let options: StreamConnectionOptions
    private let sink: any StreamConnectionSink
    private let clock: any EntityClock
    private let http: HTTPClient
    /// The token for the description request (the user's).
    private let restTokens: any TokenSource
    /// The socket's token: the description's, else the user's.
    private let socketTokens: StreamSocketTokenSource

    /// The lifecycle; every change of state goes through it.
    private var machine: StreamConnectionStateMachine

    public var status: ConnectionStatus { machine.status }
    /// The service description, once loaded.
    public private(set) var serviceDescription: ServiceDescription?
    /// The schema observations are decoded with (grows as fields are learned).
    public private(set) var schema: Schema?
    /// The reconnection attempt under way or next (0 = the first connection).
    public var attempt: Int { machine.attempt }

    /// Why the last attempt failed, if it did.
    public var lastError: String? { machine.lastError.map(redacted) }
    /// Messages that could not be decoded so far.
    public private(set) var undecodableMessageCount = 0
    /// The filter in effect (or to be sent at the next connection).
    public var filter: StreamFilter { filters.inEffect }

    private var currentURL: String?
    private var socket: WebSocketConnection?
    /// The task running the current episode (owned: a disconnect cancels and awaits it).
    private var runner: Task<Void, Never>?
    private var urlRotation = 0
    private var usedSocketToken: String?
    /// The REST token last sent (the user's, or one its source renewed).
    private var usedRESTToken: String?
    /// The last description was fetched over https (after any redirects).
    private var descriptionCameOverTLS = false
    private var outcomeWaiters: [(episode: Int, continuation: CheckedContinuation<ConnectionStatus, Never>)] = []
    private var teardownWaiters: [CheckedContinuation<Void, Never>] = []
    /// Every status change goes to the sink's bus, then to ``statusUpdates()``.
    private nonisolated let statuses: ConnectionStatusBroadcaster
    /// The filter's negotiation; every filter decision is its.
    private var filters: FilterNegotiation
    /// Callers of ``setFilter(_:)`` waiting for the server, by request id.
    private var filterWaiters: [Int: CheckedContinuation<FilterOutcome, Never>] = [:]
    /// The related rows, once fetched (kept for the connection's life).
    private var relatedTable: (url: String, table: RelatedTable)?
    /// The join in effect (nil without related features).
    private var join: RelatedFeatureJoin?
    /// Archive priming; every priming decision is its.
    private var priming = ArchivePriming()
    private var archiveErrorCount = 0
    private var relatedErrorCount = 0
    /// Primed observations delivered so far (all connects).
    public var primedObservationCount: Int { priming.primedObservationCount }

    public init(serviceURL: String, options: StreamConnectionOptions = .init(), sink: any StreamConnectionSink) {
        self.serviceURL = serviceURL
        self.options = options
        self.sink = sink
        self.clock = options.clock
        self.http = HTTPClient(configuration: options.http, eventLoop: options.eventLoop)
        self.machine = StreamConnectionStateMachine(policy: options.reconnectPolicy, seed: options.reconnectSeed)
        self.filters = FilterNegotiation(filter: options.filter, replyTimeoutMilliseconds: options.filterReplyTimeoutMilliseconds)
        self.restTokens = options.tokenSource ?? StaticTokenSource(options.token)
        self.socketTokens = StreamSocketTokenSource(fallback: restTokens)
        self.statuses = ConnectionStatusBroadcaster { change in
            await sink.publish(StreamEvent(time: change.time, payload: .status(change)))
        }
    }

    // MARK: Status

    /// A sequence of every status change from now on.
    public nonisolated func statusUpdates() -> AsyncStream<ConnectionStatusChange> {
        statuses.updates()
    }

    private func publishStatus(error: String?) async {
        let error = error.map(redacted)
        let change = ConnectionStatusChange(status: machine.status, attempt: machine.attempt,
                                            url: currentURL.map(ServiceURLs.redacted), error: error, time: clock.now())
        await statuses.publish(change)
    }

    /// Resumes whoever waits for the outcome of `episode` (or of any older one).
    private func resolveOutcome(_ status: ConnectionStatus, upTo episode: Int) {
        var remaining: [(episode: Int, continuation: CheckedContinuation<ConnectionStatus, Never>)] = []
        for waiter in outcomeWaiters {
            if waiter.episode <= episode { waiter.continuation.resume(returning: status) } else { remaining.append(waiter) }
        }
        outcomeWaiters = remaining
    }

    // MARK: Connect and disconnect

    /// Connects (if not already connected or connecting) and returns the
    /// resulting status: `connected`, or `failed` once reconnection gave up
    /// (or `disconnected` if ``disconnect()`` intervened). A connect that
    /// arrives while a disconnect is tearing down waits for it, then connects.
    @discardableResult
    public func connect() async -> ConnectionStatus {
        while true {
            switch machine.connectRequested() {
            case .alreadyConnected:
                return .connected
            case .awaitTeardown:
                await withCheckedContinuation { teardownWaiters.append($0) }
                continue
            case .startEpisode(let episode):
                currentURL = nil
                runner = Task { await self.run(episode: episode) }
                return await withCheckedContinuation { outcomeWaiters.append((episode, $0)) }
            case .awaitOutcome:
                let episode = machine.episode
                return await withCheckedContinuation { outcomeWaiters.append((episode, $0)) }
            }
        }
    }

    /// Closes the socket (code 1000), stops reconnecting, and sets the status
    /// to `disconnected`. Safe at any time; does nothing when already
    /// disconnected; the status reads `disconnected` from the moment it is called.
    /// A server that does not answer the close frame within
    /// ``StreamConnectionOptions/closeTimeoutMilliseconds`` (on the clock) is
    /// dropped, and the `disconnected` status's error says so.
    public func disconnect() async {
        switch machine.disconnectRequested() {
        case .nothing:
            return
        case .awaitTeardown:
            await withCheckedContinuation { teardownWaiters.append($0) }
        case .reportDisconnected:
            currentURL = nil
            await publishStatus(error: nil)
        case .tearDown(let episode):
            let runner = self.runner
            self.runner = nil
            runner?.cancel()
            var cut: String?
            if let socket {
                self.socket = nil
                let clock = self.clock
                let limit = options.closeTimeoutMilliseconds
                let answered = await socket.close(code: 1000, reason: "client disconnecting") {
                    try await clock.sleep(milliseconds: limit)
                }
                if !answered {
                    cut = "the server did not answer the close frame within \(Double(limit) / 1000) s; the connection was dropped"
                }
            }
            await runner?.value
            closeFilters(reason: "disconnected")
            currentURL = nil
            machine.teardownFinished()
            resolveOutcome(.disconnected, upTo: episode)
            await publishStatus(error: cut)
            let waiters = teardownWaiters
            teardownWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: The connection loop

    private func run(episode: Int) async {
        await publishStatus(error: nil)
        while machine.isCurrent(episode) && !Task.isCancelled {
            let requireNewToken = machine.attemptStarting(episode: episode)
            let end = await attemptConnection(episode: episode, requireNewToken: requireNewToken)
            guard !Task.isCancelled else { return }
            switch machine.attemptEnded(episode: episode, end, now: clock.now()) {
            case .stale:
                return
            case .fail(let error):
                runner = nil
                resolveOutcome(.failed, upTo: episode)
                await publishStatus(error: error)
                return
            case .retryNow(_, _, let error):
                await publishStatus(error: error)
            case .retryAt(let deadline, _, let error):
                await publishStatus(error: error)
                do { try await clock.sleep(until: deadline) } catch { return }
            }
        }
    }

    private func attemptConnection(episode: Int, requireNewToken: Bool) async -> StreamConnectionStateMachine.AttemptEnd {
        let description: ServiceDescription
        do {
            description = try await loadDescription()
        } catch {
            switch error {
            case .request(let cause, let redacted):
                return .failed(message: "the service description could not be fetched: \(describe(cause, text: redacted))", retryable: Self.isRetryable(cause))
            case .answer(let answer):
                return .failed(message: answer.description, retryable: Self.isRetryable(answer))
            }
        }
        guard machine.isCurrent(episode) else { return .failed(message: "cancelled", retryable: true) }
        await socketTokens.update(descriptionToken: description.webSocketEntry?.token)
        let socketToken: String?
        if requireNewToken {
            switch await socketTokens.renewToken(rejected: usedSocketToken) {
            case .renewed(let token): socketToken = token
            case .unavailable:
                return .tokenUnchanged(message: "\(machine.lastError ?? "not authorized"); the service description offers no new token")
            }
        } else {
            socketToken = await socketTokens.token()
        }
        var schema: Schema
        do {
            schema = try description.schema(trackIDFieldOverride: options.trackIDField)
        } catch {
            return .failed(message: error.description, retryable: false)
        }
        join = await relatedJoin(description: description, schema: schema)
        guard machine.isCurrent(episode), !Task.isCancelled else { return .failed(message: "cancelled", retryable: true) }
        if let join { schema = join.schema }
        let filter = filters.inEffect
        if let whereText = filter.effectiveWhereClause {
            do {
                _ = try WhereClause(whereText, schema: schema)
            } catch {
                return .failed(message: "invalid --where: \(error)", retryable: false)
            }
        }
        serviceDescription = description
        await sink.descriptionLoaded(description)
        if self.schema != schema {
            self.schema = schema
            await sink.schemaChanged(schema)
        }
        switch priming.step(episode: episode, description: description) {
        case .skip:
            break
        case .report(let message):
            await reportBuddy(.archive, message)
        case .prime(let archive):
            let primer = ArchivePrimer(archive: archive, filter: filter, schema: schema, join: join, clientOptions: buddyClientOptions)
            let outcome = await primer.run(sink: sink)
            if let message = priming.finished(episode: episode, outcome) { await reportBuddy(.archive, message) }
        }
        guard machine.isCurrent(episode), !Task.isCancelled else { return .failed(message: "cancelled", retryable: true) }
        let urls = description.webSocketURLs
        guard !urls.isEmpty else { return .failed(message: ServiceDescriptionError.missingStreamURLs.description, retryable: false) }
        let base = urls[urlRotation % urls.count]
        urlRotation += 1
        let url = ServiceURLs.subscribeURL(base: base, token: socketToken, filter: filter)
        if let refusal = plaintextTokenRefusal(streamURL: base, token: socketToken) {
            return .failed(message: refusal, retryable: false)
        }
        currentURL = url
        usedSocketToken = socketToken

        let connection: WebSocketConnection
        do {
            connection = try await WebSocketClient.connect(to: url, configuration: options.webSocket, eventLoop: options.eventLoop)
        } catch {
            return .failed(message: describe(error, text: error.description), retryable: Self.isRetryable(error))
        }
        guard machine.established(episode: episode, now: clock.now()), !Task.isCancelled else {
            await connection.close(code: 1000, reason: "client disconnecting")
            return .failed(message: "cancelled", retryable: true)
        }
        socket = connection
        resolveOutcome(.connected, upTo: episode)
        await publishStatus(error: nil)
        let end = await receive(from: connection, schema: schema,
                                spatialReference: filter.outSpatialReference ?? description.spatialReference)
        if socket === connection { socket = nil }
        closeFilters(reason: "the connection closed before the server answered")
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
        Redaction.redact(text, secrets: [options.token, usedRESTToken, usedSocketToken])
    }

    /// A transport error in words, with a hint for a local simulator's
    /// self-signed certificate when the options carry one.
    /// `text` (the error's words, tokens redacted) with the self-signed
    /// certificate hint when the certificate was untrusted; decided on the
    /// error's case, never on its text.
    private func describe(_ error: TransportError, text: String) -> String {
        if case .certificateRejected(_, .untrusted, _) = error, let hint = options.selfSignedCertificateHint {
            return "\(text); \(hint)"
        }
        return text
    }

    /// Why the description could not be loaded: the request failed (the
    /// typed transport error, and its text with tokens redacted), or the
    /// answer was unusable.
    enum DescriptionLoadError: Error {
        case request(TransportError, redacted: String)
        case answer(ServiceDescriptionError)
    }

    /// Whether retrying can help: network trouble and server errors can pass;
    /// an answer that something is wrong (unknown service, refused
    /// credentials, untrusted certificate, bad URL) will not.
    static func isRetryable(_ error: ServiceDescriptionError) -> Bool {
        switch error {
        case .httpStatus(let status, _): return status >= 500 || status == 408 || status == 429
        default: return false
        }
    }

    static func isRetryable(_ error: TransportError) -> Bool {
        switch error {
        case .invalidURL, .tlsFailure, .certificateRejected: return false
        case .handshakeRejected(let status): return status >= 500 || status == 408 || status == 429
        default: return true
        }
    }

    /// Loads the description with the REST token; when the service rejects
    /// the token (ArcGIS 498/499), asks the token source once for another.
    private func loadDescription() async throws(DescriptionLoadError) -> ServiceDescription {
        var token = await restTokens.token()
        do {
            return try await loadDescription(token: token)
        } catch {
            guard case .answer(.arcGISError(let answer)) = error, answer.isTokenError,
                  case .renewed(let renewed) = await restTokens.renewToken(rejected: token) else { throw error }
            token = renewed
        }
        return try await loadDescription(token: token)
    }

    private func loadDescription(token: String?) async throws(DescriptionLoadError) -> ServiceDescription {
        let url = ServiceURLs.descriptionURL(service: serviceURL, token: token)
        if token != nil { usedRESTToken = token }
        let response: HTTPResponse
        do {
            response = try await http.get(url)
        } catch {
            throw .request(error, redacted: error.description.redactingToken(token))
        }
        guard response.status == 200 else {
            // ArcGIS answers some errors as its JSON error object with a non-200 status: report its words.
            do { _ = try ServiceDescription(json: response.body) } catch {
                if case .arcGISError = error { throw .answer(error) }
            }
            throw .answer(.httpStatus(response.status, excerpt: OneLine.text(response.text, maximumLength: 120)))
        }
        descriptionCameOverTLS = response.url.lowercased().hasPrefix("https://")
        do { return try ServiceDescription(json: response.body) } catch { throw .answer(error) }
    }

    // MARK: Buddy services

    /// The options of the buddy services' layer clients: the connection's
    /// token source (renewals shared), HTTP settings, event loop and clock.
    private var buddyClientOptions: FeatureLayerClientOptions {
        var client = FeatureLayerClientOptions()
        client.tokenSource = restTokens
        client.http = options.http
        client.eventLoop = options.eventLoop
        client.clock = clock
        return client
    }

    /// The join of the description's related features to `schema` (fetching
    /// the rows the first time), or nil; problems become `related` errors.
    private func relatedJoin(description: ServiceDescription, schema: Schema) async -> RelatedFeatureJoin? {
        let related: RelatedFeatures
        do {
            guard let member = try description.related() else { return nil }
            related = member
        } catch {
            await reportBuddy(.related, error.description)
            return nil
        }
        if relatedTable?.url != related.featuresURL {
            do {
                let table = try await RelatedFeaturesLoader(related: related, clientOptions: buddyClientOptions).load()
                relatedTable = (related.featuresURL, table)
                if table.duplicateKeys > 0 || table.rowsWithoutKey > 0 {
                    await reportBuddy(.related, "related features from \(ServiceURLs.redacted(related.featuresURL)): \(table.duplicateKeys) rows repeat a '\(related.joinField)' value (the first row is used) and \(table.rowsWithoutKey) have none (not joined)")
                }
            } catch {
                if Task.isCancelled { return nil }
                await reportBuddy(.related, "related features not joined: \(error)")
                return nil
            }
        }
        guard let table = relatedTable?.table else { return nil }
        do { return try RelatedFeatureJoin(streamSchema: schema, table: table) } catch {
            await reportBuddy(.related, "related features not joined: \(error)")
            return nil
        }
    }

    private func reportBuddy(_ source: StreamErrorReport.Source, _ message: String) async {
        let count: Int
        if source == .archive {
            archiveErrorCount += 1
            count = archiveErrorCount
        } else {
            relatedErrorCount += 1
            count = relatedErrorCount
        }
        await sink.publish(StreamEvent(time: clock.now(), payload: .error(StreamErrorReport(source: source, message: message, count: count))))
    }

    // MARK: Receiving

    /// `spatialReference`: the stream's (the outSR asked for, else the
    /// description's), given to points whose message names none.
    private func receive(from connection: WebSocketConnection, schema: Schema, spatialReference: Int?) async -> StreamConnectionStateMachine.AttemptEnd {
        var decoder = EsriFeatureDecoder(schema: schema)
        decoder.spatialReference = spatialReference
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
                    // Hand over in slices so decoded messages never pile up beyond a few thousand.
                    if messages.count >= 2_048 { await handOver(&messages, decoder: decoder) }
                }
                await handOver(&messages, decoder: decoder)
            }
        } catch {
            return .failed(message: error.description, retryable: true)
        }
        switch await connection.closed() {
        case .success(let info): return .closed(code: info.code, reason: info.reason)
        case .failure(let error): return .failed(message: error.description, retryable: true)
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
        if let join { join.join(&messages) }
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
        switch filters.request(filter, schema: schema, socketOpen: socket != nil, now: clock.now()) {
        case .settled(let outcome):
            return outcome
        case .send(let id, let message, let deadline):
            // Queued on the socket and awaited in one step (no suspension between),
            // so messages leave in call order and replies resolve the oldest request.
            do {
                try socket?.enqueue(message)
            } catch {
                return filters.sendFailed(id: id, error: "\(error)")
            }
            let clock = self.clock
            let timer = Task { [weak self] in
                do { try await clock.sleep(until: deadline) } catch { return }
                await self?.filterDeadlinePassed(id: id)
            }
            // The caller's cancellation does not end the wait: the request settles
            // by the server's answer, its deadline or the socket's end.
            defer { timer.cancel() }
            return await withCheckedContinuation { filterWaiters[id] = $0 }
        }
    }

    /// Resumes the caller waiting for request `id`.
    private func settleFilter(id: Int, _ outcome: FilterOutcome) {
        filterWaiters.removeValue(forKey: id)?.resume(returning: outcome)
    }

    private func resolveFilter(reply: JSONObject) async {
        switch filters.replyReceived(reply) {
        case .settle(let id, let outcome):
            settleFilter(id: id, outcome)
        case .unrequested(let outcome):
            await sink.publish(StreamEvent(time: clock.now(), payload: .filter(outcome)))
        }
    }

    private func filterDeadlinePassed(id: Int) {
        if let outcome = filters.deadlinePassed(id: id) { settleFilter(id: id, outcome) }
    }

    private func closeFilters(reason: String) {
        for (id, outcome) in filters.socketClosed(reason: reason) { settleFilter(id: id, outcome) }
    }
}
