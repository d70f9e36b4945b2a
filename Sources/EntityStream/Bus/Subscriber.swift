import EntityStreamCore
import EntityStreamModel

/// One consumer of bus events, with its own filter and a queue bounded by
/// count and by bytes.
///
/// The bus hands every published batch to ``deliver(_:)``; the subscriber
/// keeps what its ``EventFilter`` accepts. When its consumer falls behind,
/// ``OverflowPolicy/backPressure`` (the default) makes the bus — and so
/// ingestion and ultimately the socket — wait, losing nothing;
/// ``OverflowPolicy/dropOldest`` drops the oldest queued events instead and
/// reports how many in a `dropped` event at the head of the next batch.
/// Read with ``next()`` from one task.
///
/// A final class, not an actor: its state is the ``BatchQueue``'s (which
/// locks), so delivering and reading never hop to an executor of its own.
/// Sendable.
public final class Subscriber: Sendable {
    public let name: String
    public let filter: EventFilter
    private let queue: BatchQueue<StreamEvent>
    private let clock: any EntityClock

    /// - Parameters:
    ///   - capacity: events queued before the policy applies.
    ///   - byteLimit: bytes of events (``StreamEvent/retainedBytes``) queued before the policy applies.
    public init(name: String, filter: EventFilter = .all, capacity: Int = 65_536, byteLimit: Int = 2 << 20,
                policy: OverflowPolicy = .backPressure, clock: any EntityClock = SystemClock()) {
        self.name = name
        self.filter = filter
        self.queue = BatchQueue(capacity: capacity, costLimit: byteLimit, policy: policy)
        self.clock = clock
    }

    /// Queues the accepted part of `events` (may wait under back-pressure).
    public func deliver(_ events: [StreamEvent]) async {
        await deliver(events, retainedBytes: StreamEvent.retainedBytes(of: events))
    }

    /// Queues the accepted part of `events`, whose ``StreamEvent/retainedBytes``
    /// sum to `retainedBytes` (the part kept is charged its share).
    public func deliver(_ events: [StreamEvent], retainedBytes: Int) async {
        if filter.acceptsEverything {
            await queue.send(events, cost: retainedBytes)
            return
        }
        // A batch the filter takes whole (the usual case: the store makes no
        // event of a kind nobody wants) is queued as it is, not copied.
        let filter = self.filter
        let kept: [StreamEvent]? = events.withUnsafeBufferPointer { events in
            guard let firstRejected = events.indices.first(where: { !filter.accepts(events, at: $0) }) else { return nil }
            var kept = Array(events[..<firstRejected])
            for index in (firstRejected + 1)..<events.count where filter.accepts(events, at: index) {
                kept.append(events[index])
            }
            return kept
        }
        guard let kept else {
            await queue.send(events, cost: retainedBytes)
            return
        }
        guard !kept.isEmpty else { return }
        let share = kept.count == events.count ? retainedBytes : Int(Double(retainedBytes) * Double(kept.count) / Double(events.count))
        await queue.send(kept, cost: share)
    }

    /// Queues a `dropped` event for `missed` events published before this
    /// subscriber joined (when its filter takes `dropped` events), then `events`.
    func deliver(missed: Int, total: Int, then events: [StreamEvent]) async {
        if filter.kinds.contains(.dropped) {
            let notice = StreamEvent(time: clock.now(), payload: .dropped(count: missed, total: total))
            await queue.send([notice], cost: notice.retainedBytes)
        }
        await deliver(events)
    }

    /// The next batch of events, everything queued so far; nil after
    /// ``finish()`` once drained. A `dropped` event leads the batch when
    /// events were dropped since the previous call.
    public func next() async -> [StreamEvent]? {
        guard var batch = await queue.next() else { return nil }
        let dropped = queue.takeDroppedCount()
        if dropped.sinceLast > 0 && filter.kinds.contains(.dropped) {
            batch.insert(StreamEvent(time: clock.now(), payload: .dropped(count: dropped.sinceLast, total: dropped.total)), at: 0)
        }
        return batch
    }

    /// Events dropped so far by ``OverflowPolicy/dropOldest``.
    public var droppedTotal: Int { queue.droppedTotalSoFar }

    /// Ends the subscription; ``next()`` drains, then returns nil.
    public func finish() { queue.finish() }

    /// Ends the subscription and drops what is queued (``next()`` returns
    /// nil); returns how many events were dropped.
    @discardableResult
    public func discard() -> Int { queue.discard() }
}

