import EntityStreamCore

/// The processing chain every source feeds: the entity store, the event
/// bus, and the current schema. It is the ``StreamConnectionSink`` of a live
/// connection and the target of a replay.
///
/// Order is preserved end to end: status, error and filter events and the
/// store's events enter the bus in the order the source produced them.
/// ``receive(_:)`` returns once the store has taken the batch (so a slow
/// subscriber, through the bus, slows the source).
public final class StreamPipeline: StreamConnectionSink {
    public let bus: EventBus
    public let store: EntityStore
    public let schema: SchemaBox
    public let clock: any EntityClock

    public init(purgeOptions: PurgeOptions, clock: any EntityClock = SystemClock(), busCapacity: Int = 16_384) {
        self.clock = clock
        self.schema = SchemaBox()
        self.bus = EventBus(capacity: busCapacity)
        self.store = EntityStore(schema: Schema(fields: []), options: purgeOptions, bus: bus, clock: clock)
    }

    public func schemaChanged(_ schema: Schema) async {
        self.schema.schema = schema
        await store.updateSchema(schema)
    }

    public func receive(_ messages: [StreamMessage]) async {
        await store.ingest(messages)
    }

    public func publish(_ event: StreamEvent) async {
        await bus.publish(event)
    }

    /// Publishes an error report now.
    public func report(_ source: StreamErrorReport.Source, _ message: String, count: Int) async {
        await bus.publish(StreamEvent(time: clock.now(), payload: .error(StreamErrorReport(source: source, message: message, count: count))))
    }

    /// Stops the store's timer and delivers what the bus holds; subscribers then end.
    public func close() async {
        await store.stop()
        await bus.close()
    }
}
