import EntityStreamCore
import EntityStreamLocking
import Synchronization
import EntityStreamTransport
import EntityStreamModel

/// One WebSocket subscriber of a simulated service: its own filter, its
/// own position in the feed, its own pace (a slow subscriber only slows
/// itself: its queue waits, the others go on), and the faults to inject.
final class SubscriberSession: Sendable {
    let id: Int
    let service: SimulatedService
    let token: String?
    private let socket: ServerWebSocket
    private let configuration: SimulatorConfiguration
    private let serverStart: Int64
    private let filter: LockedState<(version: Int, value: SubscriberFilter)>
    /// `filter`'s version, readable without its lock (stored after each change, under it).
    private let filterVersion = Atomic<Int>(1)

    init(id: Int, service: SimulatedService, token: String?, socket: ServerWebSocket, filter: SubscriberFilter,
         configuration: SimulatorConfiguration, serverStart: Int64) {
        self.id = id
        self.service = service
        self.token = token
        self.socket = socket
        self.configuration = configuration
        self.serverStart = serverStart
        self.filter = LockedState((1, filter))
    }

    /// Closes with 4401 because the token this subscriber used has expired.
    func expireToken() async {
        configuration.log("fault: token expired; closing subscriber \(id) of \(service.name) with 4401")
        await socket.close(code: 4401, reason: "token expired")
    }

    /// The filter in effect, as the subscriber asked for it.
    var currentStreamFilter: StreamFilter { filter.withLock { $0.value.filter } }

    /// Plays the feed until the subscriber leaves, the feed ends, or a fault
    /// ends it; a live service's subscriber is registered with its stream,
    /// which sends to it, until it leaves.
    func run() async {
        if case .live(let stream) = service.feed {
            let subscriber = stream.register(session: self, socket: socket)
            configuration.log("\(service.name): subscriber \(id) joined (\(stream.clients.count) connected)")
            await readFilterMessages()
            _ = await socket.closed()
            let stats = stream.unregister(subscriber)
            configuration.log("\(service.name): subscriber \(id) left: \(stats.offered) offered, \(stats.sent) sent, \(stats.dropped) dropped by the slow-client policy")
            return
        }
        let faults = configuration.faults
        if let closeCode = faults.closeCode, faults.dropAfter == nil {
            configuration.log("fault: closing subscriber \(id) of \(service.name) with \(closeCode.code) \(closeCode.reason)")
            await socket.close(code: closeCode.code, reason: closeCode.reason)
            return
        }
        // The filter reader is a child task: it ends when the feed does.
        await withDiscardingTaskGroup { group in
            group.addTask { await self.readFilterMessages() }
            await play()
            group.cancelAll()
        }
    }

    /// Sends the feed until it ends, the subscriber leaves or a fault ends it.
    private func play() async {
        let faults = configuration.faults
        var cursor = FeedCursor(feed: service.feed, pacing: configuration.pacing, serverStart: serverStart, now: SystemClock().now())
        var current = filter.withLock { $0 }
        var decoder = EsriFeatureDecoder(schema: service.schema)
        var decoded: [StreamMessage] = []
        var writer = JSONWriter(capacity: 1024)
        var sent = 0
        var stalled = false
        let clock = SystemClock()
        /// No fault counts messages, so one may be queued without the checks of `deliver`.
        let plain = faults.malformedEvery == nil && faults.stallMilliseconds == nil && faults.dropAfter == nil
        /// Sends one message, injecting the configured faults; false when the subscriber is gone or a fault ended it.
        func deliver(_ bytes: ArraySlice<UInt8>) async -> Bool {
            var message = bytes
            if let every = faults.malformedEvery, (sent + 1) % every == 0 {
                message = message.prefix(max(1, message.count / 2))
                configuration.log("fault: sending a malformed message (#\(sent + 1)) to subscriber \(id) of \(service.name)")
            }
            do { try await socket.send(bytes: message) } catch { return false }
            sent += 1
            if let stall = faults.stallMilliseconds, !stalled, sent >= faults.stallAfter {
                stalled = true
                configuration.log("fault: stalling subscriber \(id) of \(service.name) for \(stall) ms after \(sent) messages")
                do { try await Task.sleep(for: .milliseconds(stall)) } catch { return false }
            }
            if let dropAfter = faults.dropAfter, sent >= dropAfter {
                await socket.flush()
                if let closeCode = faults.closeCode {
                    configuration.log("fault: closing subscriber \(id) of \(service.name) with \(closeCode.code) after \(sent) messages")
                    await socket.close(code: closeCode.code, reason: closeCode.reason)
                } else {
                    configuration.log("fault: dropping subscriber \(id) of \(service.name) after \(sent) messages")
                    socket.abort()
                }
                return false
            }
            return true
        }
        while let (due, item) = cursor.next() {
            if let due {
                let wait = due - clock.now()
                if wait > 0 {
                    do { try await Task.sleep(for: .milliseconds(wait)) } catch { return }
                }
            }
            if Task.isCancelled { return }
            // The filter's version is read without the lock; the lock only when it changed.
            if filterVersion.load(ordering: .acquiring) != current.version { current = filter.withLock { $0 } }
            switch item {
            case .raw(let message) where current.value.passesEverything:
                // The common case: the recorded line as it is, straight from the
                // read-ahead buffer, queued without an async call while there is room.
                if plain, socket.trySend(bytes: message) {
                    sent += 1
                } else {
                    guard await deliver(message) else { return }
                }
            case .raw(let message):
                decoded.removeAll(keepingCapacity: true)
                let bytes = Array(message)
                if (try? decoder.decode(bytes, receivedAt: 0, into: &decoded)) == nil {
                    guard await deliver(message) else { return }
                }
                for case .observation(let observation) in decoded {
                    guard let shaped = current.value.apply(observation) else { continue }
                    writer.removeAll()
                    writer.appendFeature(shaped, fields: current.value.schema.fields)
                    guard await deliver(writer.bytes[...]) else { return }
                }
            case .observation(let observation):
                guard let shaped = current.value.apply(observation) else { continue }
                writer.removeAll()
                writer.appendFeature(shaped, fields: current.value.schema.fields)
                // As for recorded lines: queued without an async call while there is room.
                if plain, socket.trySend(bytes: writer.bytes[...]) {
                    sent += 1
                } else {
                    guard await deliver(writer.bytes[...]) else { return }
                }
            }
        }
        // The feed ended (no --loop): keep the socket open, as a quiet live service would.
        _ = await socket.closed()
    }

    /// Answers `{"filter":…}` messages: applies valid filters and echoes the
    /// filter in effect; answers invalid ones with an `error`, keeping the old filter.
    private func readFilterMessages() async {
        do {
            for try await batch in socket.inbound {
                for index in batch.indices {
                    let reply = handleControlMessage(Array(batch[index]))
                    try await socket.send(bytes: reply)
                }
            }
        } catch {}
    }

    /// Largest filter message answered in full; a longer one is refused
    /// without being echoed, so a reply stays small whatever was sent.
    static let maximumFilterMessageBytes = 64 * 1024

    func handleControlMessage(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count <= Self.maximumFilterMessageBytes else {
            return SubscriberFilter.reply(filter.withLock { $0.value.filter },
                                          error: "filter message of \(bytes.count) bytes exceeds the limit of \(Self.maximumFilterMessageBytes) bytes")
        }
        let requested: JSONValue
        do { requested = try JSONParser.parse(bytes) } catch {
            return SubscriberFilter.reply(filter.withLock { $0.value.filter }, error: "not JSON: \(error)")
        }
        guard let filterValue = requested["filter"] else {
            return SubscriberFilter.reply(filter.withLock { $0.value.filter }, error: "expected a {\"filter\":…} message")
        }
        let current = filter.withLock { $0.value }
        do {
            var parsed = try StreamFilter.parse(json: filterValue)
            parsed.outSpatialReference = current.filter.outSpatialReference
            let (schema, reference) = service.current
            let applied = try SubscriberFilter(parsed, schema: schema, serviceReference: reference)
            filter.withLock { state in
                state = (state.version + 1, applied)
                filterVersion.store(state.version, ordering: .releasing)
            }
            return SubscriberFilter.reply(parsed)
        } catch let error as FilterError {
            return Self.rejection(filterValue, error.description)
        } catch let error as SimulatorError {
            return Self.rejection(filterValue, error.description)
        } catch {
            return Self.rejection(filterValue, "\(error)")
        }
    }

    private static func rejection(_ requested: JSONValue, _ message: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        let bounded = message.utf8.count <= 1024 ? message : String(decoding: message.utf8.prefix(1024), as: UTF8.self) + "…"
        writer.append(.object(JSONObject([("filter", requested), ("error", .array([.string(bounded)]))])))
        return writer.bytes
    }
}
