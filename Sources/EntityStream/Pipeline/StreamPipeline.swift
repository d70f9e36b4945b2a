import EntityStreamCore
import EntityStreamModel
import Synchronization

/// The processing chain every source feeds: the entity store, the event
/// bus, and the current schema. It is the ``StreamConnectionSink`` of a live
/// connection and the target of a replay.
///
/// Decoding and storing overlap: ``receive(_:)`` hands a batch to a queue
/// bounded by bytes (``StreamMessage/retainedBytes``, a few batches deep)
/// drained by one task that feeds the store, so
/// the source decodes the next batch while the store takes this one. When
/// the store (or, through the bus, a subscriber) falls behind, the queue
/// fills and ``receive(_:)`` waits — back-pressure reaches the source.
/// Everything the source hands over (batches, status and error events,
/// schema changes) goes through the same queue, so order is preserved end
/// to end. A pipeline released without ``close()`` ends its worker too (the
/// worker holds the queue, the store and the bus, never the pipeline).
public final class StreamPipeline: StreamConnectionSink {
    private enum Work: Sendable {
        case messages([StreamMessage])
        /// Observations primed from the service's archive.
        case primed([StreamMessage])
        case event(StreamEvent)
        case schema(Schema)

    }

    public let bus: EventBus
    public let store: EntityStore
    public let schema: SchemaBox
    public let clock: any EntityClock
    private let work: BatchQueue<Work>
    private let worker: Task<Void, Never>
    private let stored: StoredCount

    /// Live observations (``receive(_:)``, not primed ones) the store has
    /// taken so far: what a JetStream consumer feeding `serve` may
    /// acknowledge (its observations then are in the store and the fan-out).
    public var observationsStored: Int { stored.value.load(ordering: .acquiring) }

    private final class StoredCount: Sendable {
        let value = Atomic<Int>(0)
    }

    /// - Parameters:
    ///   - workByteLimit: bytes of decoded messages queued ahead of the store.
    ///   - busCapacity, busByteLimit: the bus queue's limits (see ``EventBus``).
    public init(purgeOptions: PurgeOptions, clock: any EntityClock = SystemClock(), busCapacity: Int = 16_384,
                busByteLimit: Int = 1 << 20, workByteLimit: Int = 1 << 20) {
        self.clock = clock
        self.schema = SchemaBox()
        work = BatchQueue<Work>(capacity: 64, costLimit: workByteLimit)
        let bus = EventBus(capacity: busCapacity, byteLimit: busByteLimit)
        let store = EntityStore(schema: Schema(fields: []), options: purgeOptions, bus: bus, clock: clock)
        self.bus = bus
        self.store = store
        let work = self.work
        let stored = StoredCount()
        self.stored = stored
        worker = Task {
            var events: [StreamEvent] = []
            while let items = await work.next() {
                for item in items {
                    if case .event(let event) = item {
                        // Consecutive events (an analysis's results) reach the bus as one batch.
                        events.append(event)
                        continue
                    }
                    if !events.isEmpty {
                        await bus.publish(events)
                        events = []
                    }
                    switch item {
                    case .messages(let messages):
                        await store.ingest(messages)
                        stored.value.add(messages.count, ordering: .releasing)
                    case .primed(let messages): await store.ingest(messages, primed: true)
                    case .schema(let schema): await store.updateSchema(schema)
                    case .event: break
                    }
                }
                if !events.isEmpty {
                    await bus.publish(events)
                    events = []
                }
            }
        }
    }

    deinit {
        work.finish()
    }

    public func schemaChanged(_ schema: Schema) async {
        self.schema.schema = schema
        await work.send([.schema(schema)], cost: 4096)
    }

    public func receive(_ messages: [StreamMessage]) async {
        await work.send([.messages(messages)], cost: StreamMessage.retainedBytes(of: messages))
    }

    public func receivePrimed(_ messages: [StreamMessage]) async {
        await work.send([.primed(messages)], cost: StreamMessage.retainedBytes(of: messages))
    }

    public func publish(_ event: StreamEvent) async {
        await work.send([.event(event)], cost: event.retainedBytes)
    }

    /// Publishes several events, in order with everything else.
    public func publish(_ events: [StreamEvent]) async {
        guard !events.isEmpty else { return }
        await work.send(events.map { .event($0) }, cost: StreamEvent.retainedBytes(of: events))
    }

    /// Publishes an error report, in order with everything else.
    public func report(_ source: StreamErrorReport.Source, _ message: String, count: Int) async {
        await publish(StreamEvent(time: clock.now(), payload: .error(StreamErrorReport(source: source, message: message, count: count))))
    }

    /// Processes what was handed over, stops the store's timer and delivers
    /// what the bus holds; subscribers then end.
    public func close() async {
        work.finish()
        await worker.value
        await store.stop()
        await bus.close()
    }
}
