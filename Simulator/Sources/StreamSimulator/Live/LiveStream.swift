import EntityStreamCore
import EntityStreamLocking
import Synchronization
import EntityStreamTransport
import EntityStreamModel

/// What a live stream service is at a moment: its description text, the
/// schema of its observations and its spatial reference. A relay learns
/// them from its source (a stream's description, a recording's header) and
/// updates them as the source's schema grows.
public struct LiveServiceInfo: Sendable, Equatable {
    public var description: String
    public var schema: Schema
    public var spatialReference: Int

    public init(description: String, schema: Schema, spatialReference: Int) {
        self.description = description
        self.schema = schema
        self.spatialReference = spatialReference
    }

    /// True until the source has told what its observations hold (no fields yet).
    public var isKnown: Bool { !schema.fields.isEmpty }
}

/// The fan-out side of a relayed stream: the WebSocket subscribers of one
/// live service, each with its own filter and its own bounded queue.
///
/// One task feeds it through a ``LiveStreamPublisher``; every subscriber
/// registered before a batch receives that batch's observations its filter
/// admits, in order. Observations are numbered from 0 as published (the
/// *sequence*); a subscriber's ``LiveClientStats/joinedAt`` is the number
/// of the first observation it was offered. Queues never make the
/// publisher wait: a subscriber that falls behind is handled by the
/// server's ``SlowClientPolicy`` (drop oldest and count, or close with
/// 1008), never slowing the others or the source. Thread-safe.
public final class LiveStream: Sendable {
    public let name: String
    private let state: LockedState<State>
    /// The serving server's "next service turn" (set when it starts).
    private let serverTurn = LockedState<(@Sendable () async -> Void)?>(nil)

    struct State {
        var info: LiveServiceInfo
        /// Incremented at every change of ``info`` (compiled filters are per generation).
        var generation = 1
        var subscribers: [Int: LiveSubscriber] = [:]
        var nextID = 1
        var sequence: Int64 = 0
        var departed = DepartedTotals()
        /// Observations the source dropped before they reached the fan-out (its own queue overflowed).
        var droppedBeforeFanOut = 0
        /// Who waits for subscribers (``waitForClients(_:)``), by waiter id.
        var waiters: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
    }

    /// What clients that have left were sent and lost, in all.
    struct DepartedTotals {
        var clients = 0
        var sent = 0
        var dropped = 0
    }

    public init(name: String, info: LiveServiceInfo) {
        self.name = name
        state = LockedState(State(info: info))
    }

    /// The service as of now.
    public var info: LiveServiceInfo { state.withLock { $0.info } }

    /// Adopts what the source now says about the service (a no-op when unchanged).
    public func update(_ info: LiveServiceInfo) {
        state.withLock { state in
            guard state.info != info else { return }
            state.info = info
            state.generation += 1
        }
    }

    /// Observations published so far (the next one's sequence number).
    public var sequence: Int64 { state.withLock { $0.sequence } }

    /// Records that the source dropped `count` observations before the fan-out (reported in ``summary``).
    public func noteDroppedBeforeFanOut(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.droppedBeforeFanOut += count }
    }

    /// Each connected subscriber's counts, by id.
    public var clients: [LiveClientStats] {
        state.withLock { Array($0.subscribers.values) }.sorted { $0.id < $1.id }.map(\.stats)
    }

    /// The totals: observations published, dropped before the fan-out, and
    /// what departed clients were sent and lost.
    public var summary: LiveStreamSummary {
        state.withLock { state in
            LiveStreamSummary(published: state.sequence, droppedBeforeFanOut: state.droppedBeforeFanOut, clients: state.subscribers.count,
                              departedClients: state.departed.clients, departedSent: state.departed.sent, departedDropped: state.departed.dropped)
        }
    }

    /// Returns after the serving server's writing thread has had a turn
    /// (every subscriber whose socket could take data was written to); at
    /// once when no server serves the stream. A source publishing a burst
    /// in slices waits for this between them, so that subscribers that keep
    /// up drain each slice before the next — a slow subscriber, whose socket
    /// is full, does not make it wait.
    public func writerTurn() async {
        guard let turn = serverTurn.withLock({ $0 }) else { return }
        await turn()
    }

    func attach(queueLimit: Int, serverTurn turn: @escaping @Sendable () async -> Void) {
        serverTurn.withLock { $0 = turn }
        queueBytes.store(queueLimit, ordering: .relaxed)
    }

    /// Bytes queued per subscriber before the slow-client policy applies (the serving server's).
    var queueLimit: Int { queueBytes.load(ordering: .relaxed) }
    private let queueBytes = Atomic<Int>(1 << 20)

    /// A publisher feeding this stream (use one, from one task).
    public func makePublisher() -> LiveStreamPublisher {
        LiveStreamPublisher(stream: self)
    }

    // MARK: Subscribers

    /// Returns once at least `count` subscribers are registered (each is
    /// offered everything published after that), or the task is cancelled.
    public func waitForClients(_ count: Int) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.subscribers.count >= count || Task.isCancelled { return true }
                    state.waiters[id] = (count, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Adds a subscriber: it is offered every observation published from now on.
    func register(session: SubscriberSession, socket: ServerWebSocket) -> LiveSubscriber {
        let (subscriber, ready) = state.withLock { state in
            let subscriber = LiveSubscriber(id: state.nextID, session: session, socket: socket, joinedAt: state.sequence)
            state.nextID += 1
            state.subscribers[subscriber.id] = subscriber
            let ready = state.waiters.filter { $0.value.count <= state.subscribers.count }
            for id in ready.keys { state.waiters[id] = nil }
            return (subscriber, ready.values.map(\.continuation))
        }
        for continuation in ready { continuation.resume() }
        return subscriber
    }

    /// Removes a subscriber, adding what it was sent and lost to the totals; returns its last counts.
    @discardableResult
    func unregister(_ subscriber: LiveSubscriber) -> LiveClientStats {
        let stats = subscriber.stats
        state.withLock { state in
            guard state.subscribers.removeValue(forKey: subscriber.id) != nil else { return }
            state.departed.clients += 1
            state.departed.sent += stats.sent
            state.departed.dropped += stats.dropped
        }
        return stats
    }

    /// Starts a batch of `count` observations: the subscribers to offer it
    /// to, the service, its generation; the sequence moves on by `count`
    /// under the same lock as registrations, so a subscriber is offered a
    /// batch exactly when it registered before it.
    func beginBatch(count: Int) -> (subscribers: [LiveSubscriber], info: LiveServiceInfo, generation: Int) {
        state.withLock { state in
            state.sequence &+= Int64(count)
            return (Array(state.subscribers.values), state.info, state.generation)
        }
    }
}

/// A live stream's totals (see ``LiveStream/summary``).
public struct LiveStreamSummary: Sendable, Hashable {
    /// Observations published to the fan-out so far.
    public var published: Int64
    /// Observations the source dropped before the fan-out.
    public var droppedBeforeFanOut: Int
    /// Subscribers connected now.
    public var clients: Int
    public var departedClients: Int
    /// Messages sent to and dropped for subscribers that have left.
    public var departedSent: Int
    public var departedDropped: Int
}

/// One subscriber's counts.
public struct LiveClientStats: Sendable, Hashable {
    public var id: Int
    /// The sequence number of the first observation it was offered.
    public var joinedAt: Int64
    /// Observations its filter admitted since it joined.
    public var offered: Int64
    /// Messages handed to its socket.
    public var sent: Int
    /// Messages dropped by the slow-client policy (its queue was full).
    public var dropped: Int
    /// Bytes queued for it now.
    public var queuedBytes: Int
    /// Its filter now.
    public var filter: StreamFilter
}

/// One WebSocket subscriber of a ``LiveStream``: its session (which holds
/// its filter and answers its filter messages), its socket and its counts.
final class LiveSubscriber: Sendable {
    let id: Int
    let session: SubscriberSession
    let socket: ServerWebSocket
    let joinedAt: Int64
    private let offered = Atomic<Int64>(0)
    /// Messages not queued because its queue was full under the wait policy (the publisher never waits).
    private let overflowed = Atomic<Int>(0)
    private let refused = Atomic<Bool>(false)
    /// Its socket's sent count at the previous offer (publisher only).
    private let sentAtLastOffer = Atomic<Int>(0)

    init(id: Int, session: SubscriberSession, socket: ServerWebSocket, joinedAt: Int64) {
        self.id = id
        self.session = session
        self.socket = socket
        self.joinedAt = joinedAt
    }

    /// The filter the publisher groups and applies by.
    var filter: StreamFilter { session.currentStreamFilter }

    /// Queues `messages` (`admitted` observations its filter let through).
    func offer(_ messages: FramedTextMessages, admitted: Int) -> FramedSendOutcome {
        offered.add(Int64(admitted), ordering: .relaxed)
        guard !messages.isEmpty else { return .queued }
        let outcome = socket.trySend(messages)
        if outcome == .full { overflowed.add(messages.count, ordering: .relaxed) }
        return outcome
    }

    /// True when its queue is more than half full while its socket is taking
    /// data (it was sent something since the previous call): a subscriber
    /// that keeps up but needs the writer to catch up with a burst. One
    /// whose socket takes nothing (it does not read) never is.
    func isDrainingBehind(halfLimit: Int) -> Bool {
        let sent = socket.sentMessageCount
        let previous = sentAtLastOffer.exchange(sent, ordering: .relaxed)
        return sent != previous && socket.queuedBytes > halfLimit
    }

    /// Closes it with 4400 once: its filter cannot be applied to the service as it is now.
    /// True the first time.
    func refuse(_ reason: String) -> Bool {
        guard !refused.exchange(true, ordering: .relaxed) else { return false }
        socket.beginClose(code: 4400, reason: String(reason.utf8.prefix(120)) ?? "invalid filter")
        return true
    }

    var stats: LiveClientStats {
        LiveClientStats(id: id, joinedAt: joinedAt, offered: offered.load(ordering: .relaxed), sent: socket.sentMessageCount,
                        dropped: socket.droppedMessageCount + overflowed.load(ordering: .relaxed), queuedBytes: socket.queuedBytes,
                        filter: filter)
    }
}
