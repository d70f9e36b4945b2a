import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// Feeds a ``LiveStream``: each batch of observations goes to every
/// subscriber registered before it, through its own filter, without ever
/// waiting for one.
///
/// Subscribers are grouped by filter: each distinct filter (where clause,
/// envelope, outFields, outSR: ``StreamFilter``) is compiled once per
/// version of the service (``LiveServiceInfo``), and the batch is filtered,
/// written as Esri JSON features (one per message, as ArcGIS stream services
/// send them) and framed once per group; each member's bounded queue then
/// holds that framed batch, shared, not copied (``ServerWebSocket/trySend(_:)``).
/// A filter that no longer compiles (the service's schema changed under it)
/// closes its subscribers with 4400. Not thread-safe: one task owns a
/// publisher.
public struct LiveStreamPublisher {
    private let stream: LiveStream
    private var compiled: [StreamFilter: Result<SubscriberFilter, SimulatorError>] = [:]
    private var compiledGeneration = 0
    private var writer = JSONWriter(capacity: 4096)
    private var framed = FramedTextMessages(capacity: 1 << 16)
    private var groups: [StreamFilter: [LiveSubscriber]] = [:]
    /// Called with a subscriber's id and what happened when the policy closed it or its filter was refused.
    public var log: @Sendable (String) -> Void = { _ in }

    /// Half a subscriber's queue limit (the server's, once it serves the stream).
    private var halfQueue: Int { stream.queueLimit / 2 }

    init(stream: LiveStream) {
        self.stream = stream
    }

    /// Offers `observations` (in order) to every subscriber. Returns true
    /// when a subscriber that keeps up has more than half its queue waiting
    /// (``LiveSubscriber/isDrainingBehind(halfLimit:)``): the caller should
    /// let the server write (``LiveStream/writerTurn()``) before the next batch.
    @discardableResult
    public mutating func publish(_ observations: [Observation]) -> Bool {
        guard !observations.isEmpty else { return false }
        let (subscribers, info, generation) = stream.beginBatch(count: observations.count)
        guard !subscribers.isEmpty else { return false }
        var behind = false
        if generation != compiledGeneration {
            compiled.removeAll()
            compiledGeneration = generation
        }
        for subscriber in subscribers { groups[subscriber.filter, default: []].append(subscriber) }
        for (filter, members) in groups {
            let shape: SubscriberFilter
            switch compiled[filter] ?? compile(filter, info) {
            case .success(let compiledFilter): shape = compiledFilter
            case .failure(let error):
                for member in members where member.refuse(error.description) {
                    log("\(stream.name): closing subscriber \(member.session.id) with 4400: its filter no longer applies (\(error.description))")
                }
                continue
            }
            framed.removeAll()
            let fields = shape.schema.fields
            var admitted = 0
            for observation in observations {
                guard let shaped = shape.apply(observation) else { continue }
                writer.removeAll()
                writer.appendFeature(shaped, fields: fields)
                writer.withUnsafeBytes { framed.append($0) }
                admitted += 1
            }
            // The members' queues share this copy (exactly as large as the batch) until they have sent it.
            let batch = framed.compacted()
            for member in members {
                if member.offer(batch, admitted: admitted) == .disconnected {
                    log("\(stream.name): subscriber \(member.session.id) fell behind; closed with 1008 (its queue was full)")
                } else if !behind, member.isDrainingBehind(halfLimit: halfQueue) {
                    behind = true
                }
            }
        }
        groups.removeAll(keepingCapacity: true)
        return behind
    }

    private mutating func compile(_ filter: StreamFilter, _ info: LiveServiceInfo) -> Result<SubscriberFilter, SimulatorError> {
        let result = Result { () throws(SimulatorError) -> SubscriberFilter in
            try SubscriberFilter(filter, schema: info.schema, serviceReference: info.spatialReference)
        }
        compiled[filter] = result
        return result
    }
}
