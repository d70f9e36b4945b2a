import CLibNATS
import EntityStream
import EntityStreamCore
import Foundation
import Locking

/// One message fetched from the stream, copied out of the client's message.
struct FetchedMessage: Sendable {
    /// The client's message (kept until acknowledged), as a bit pattern.
    let handle: UInt
    let subject: String
    let line: [UInt8]
    let trackField: String?
    let streamSequence: UInt64
    let deliveries: UInt64
}

/// Reads a stream through a durable pull consumer and feeds a
/// ``StreamPipeline``, acknowledging each message only once its observation
/// has been stored and its line written (``AckTracker`` against the
/// output's flushed-observation count). Messages are acknowledged
/// cumulatively ("ack all"); a consumer killed and started again with the
/// same durable name receives again exactly the messages whose lines were
/// not yet acknowledged, each marked with JetStream's delivery count.
public final class JetStreamConsumer: @unchecked Sendable {
    public let connection: NATSConnection
    public let stream: String
    public let settings: ConsumerSettings
    private let context: OpaquePointer
    private let subscription: OpaquePointer
    private let thread = BlockingIOThread(name: "entitystream-consume")
    /// The stream's subject prefix (`PREFIX.>`), when it has one.
    public let subjectPrefix: String?
    /// How the consumer started: created, or continued.
    public let startDescription: String
    /// Stream sequences up to this one were delivered to this durable consumer
    /// before it was started again: each is marked redelivered.
    private let deliveredBefore: UInt64
    private let counts = LockedState(Counts())

    /// What the consumer has seen, for `status` and the end-of-run summary.
    public struct Counts: Sendable, Hashable {
        public var messages = 0
        public var observations = 0
        public var redelivered = 0
        public var otherEvents = 0
        public var undecodable = 0
        public var outsidePartition = 0
        public var acknowledged = 0
        public var lastStreamSequence: UInt64 = 0
    }

    public var currentCounts: Counts { counts.withLock { $0 } }

    public init(connection: NATSConnection, stream: String, settings: ConsumerSettings) throws(JetStreamError) {
        self.connection = connection
        self.stream = stream
        self.settings = settings
        let context = try connection.jetStream()
        self.context = context
        let subjects: [String]
        do { subjects = try Streams.subjects(of: stream, in: context) } catch {
            jsCtx_Destroy(context)
            throw error
        }
        if subjects.count == 1, subjects[0].hasSuffix(".>") { subjectPrefix = String(subjects[0].dropLast(2)) } else { subjectPrefix = nil }
        var filter: String?
        if let partition = settings.partition {
            guard let prefix = subjectPrefix else {
                jsCtx_Destroy(context)
                throw .consumer(name: settings.durable ?? "ephemeral",
                                reason: "--partition needs a stream taking one PREFIX.> subject (this one takes \(subjects.joined(separator: ", ")))")
            }
            filter = partition.filterSubject(prefix: prefix)
        }
        let subject = filter ?? (subjectPrefix.map { "\($0).>" } ?? ">")
        var existing = false
        var start = settings.start
        var deliveredBefore: UInt64 = 0
        if let durable = settings.durable {
            var info: UnsafeMutablePointer<jsConsumerInfo>?
            var code = jsErrCode(rawValue: 0)
            if js_GetConsumerInfo(&info, context, stream, durable, nil, &code) == NATS_OK, let info {
                existing = true
                let pending = info.pointee.NumPending
                let waiting = info.pointee.NumAckPending
                let floor = info.pointee.AckFloor.Stream
                deliveredBefore = info.pointee.Delivered.Stream
                if let config = info.pointee.Config, let current = config.pointee.FilterSubject.map({ String(cString: $0) }),
                   !current.isEmpty, current != subject {
                    jsConsumerInfo_Destroy(info)
                    jsCtx_Destroy(context)
                    throw .consumer(name: durable, reason: "it exists with filter subject '\(current)', not '\(subject)' (another --partition?)")
                }
                jsConsumerInfo_Destroy(info)
                if waiting > 0 {
                    // Acknowledgements are cumulative: acknowledging a newer message would also
                    // acknowledge these before the server delivers them again. Start the consumer
                    // again just after the last acknowledged message instead, so they come first, in order.
                    guard js_DeleteConsumer(context, stream, durable, nil, &code) == NATS_OK else {
                        jsCtx_Destroy(context)
                        throw .consumer(name: durable, reason: "cannot restart it after its last acknowledged message: \(JetStreamError.text(NATS_ERR, errorCode: code))")
                    }
                    existing = false
                    start = .sequence(floor + 1)
                    startDescription = "continuing durable consumer '\(durable)' after stream sequence \(floor): \(waiting) messages "
                        + "delivered before and not acknowledged come again, marked redelivered; \(pending) more pending"
                } else {
                    startDescription = "continuing durable consumer '\(durable)' (\(pending) messages pending)"
                }
            } else {
                startDescription = "created durable consumer '\(durable)'"
            }
        } else {
            startDescription = "created an ephemeral consumer"
        }
        self.deliveredBefore = deliveredBefore
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        let streamName = strdup(stream)
        let durableName = settings.durable.flatMap { strdup($0) }
        let filterText = filter.flatMap { strdup($0) }
        defer {
            free(streamName)
            if let durableName { free(durableName) }
            if let filterText { free(filterText) }
        }
        options.Stream = UnsafePointer(streamName)
        if existing {
            options.Consumer = durableName.map { UnsafePointer($0) }
        } else {
            options.Config.AckPolicy = js_AckAll
            options.Config.MaxAckPending = Int64(settings.maximumAckPending)
            options.Config.AckWait = Int64(settings.ackWaitSeconds) * 1_000_000_000
            switch start {
            case .new: options.Config.DeliverPolicy = js_DeliverNew
            case .first: options.Config.DeliverPolicy = js_DeliverAll
            case .time(let milliseconds):
                options.Config.DeliverPolicy = js_DeliverByStartTime
                options.Config.OptStartTime = milliseconds * 1_000_000
            case .sequence(let sequence):
                options.Config.DeliverPolicy = js_DeliverByStartSequence
                options.Config.OptStartSeq = sequence
            }
        }
        options.ManualAck = true
        do throws(Streams.CallFailure) {
            subscription = try Streams.retrying(patience: 30) { () throws(Streams.CallFailure) in
                var subscription: OpaquePointer?
                var code = jsErrCode(rawValue: 0)
                let status = js_PullSubscribe(&subscription, context, subject, durableName.map { UnsafePointer($0) }, nil, &options, &code)
                guard status == NATS_OK, let subscription else { throw Streams.CallFailure(status: status, code: code) }
                return subscription
            }
        } catch {
            jsCtx_Destroy(context)
            throw .consumer(name: settings.durable ?? "ephemeral", reason: JetStreamError.text(error.status, errorCode: error.code))
        }
    }

    deinit {
        natsSubscription_Destroy(subscription)
        jsCtx_Destroy(context)
    }

    /// Fetches up to a batch, waiting at most `milliseconds` (an empty batch
    /// also when the connection is down or a leader is being elected: the
    /// next fetch tries again); nil once the subscription is closed. Blocking.
    private func fetch(milliseconds: Int64) -> [FetchedMessage]? {
        var list = natsMsgList()
        var code = jsErrCode(rawValue: 0)
        let status = natsSubscription_Fetch(&list, subscription, Int32(settings.batch), milliseconds, &code)
        defer {
            if list.Msgs != nil {
                // The messages themselves are kept (acknowledged later); only the list goes.
                for index in 0..<Int(list.Count) { list.Msgs[index] = nil }
                natsMsgList_Destroy(&list)
            }
        }
        if status == NATS_CONNECTION_CLOSED || status == NATS_INVALID_SUBSCRIPTION { return nil }
        guard status == NATS_OK else {
            if status != NATS_TIMEOUT { Thread.sleep(forTimeInterval: Double(milliseconds) / 1000) }
            return []
        }
        var fetched: [FetchedMessage] = []
        fetched.reserveCapacity(Int(list.Count))
        for index in 0..<Int(list.Count) {
            guard let message = list.Msgs[index] else { continue }
            let length = Int(natsMsg_GetDataLength(message))
            var line = [UInt8](repeating: 0, count: length)
            if length > 0, let data = natsMsg_GetData(message) {
                line.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: length)) }
            }
            var field: UnsafePointer<CChar>?
            let trackField = natsMsgHeader_Get(message, trackFieldHeader, &field) == NATS_OK ? field.map { String(cString: $0) } : nil
            var meta: UnsafeMutablePointer<jsMsgMetaData>?
            var sequence: UInt64 = 0
            var deliveries: UInt64 = 1
            if natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta {
                sequence = meta.pointee.Sequence.Stream
                deliveries = meta.pointee.NumDelivered
                jsMsgMetaData_Destroy(meta)
            }
            fetched.append(FetchedMessage(handle: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(message))),
                                          subject: natsMsg_GetSubject(message).map { String(cString: $0) } ?? "",
                                          line: line, trackField: trackField, streamSequence: sequence, deliveries: deliveries))
        }
        return fetched
    }

    /// Feeds `pipeline` until cancelled or the subscription fails (the reason).
    /// `written` reads how many observation lines the output has written;
    /// `marks` carries each batch's delivery counts to the store's enricher.
    public func run(into pipeline: StreamPipeline, written: @escaping @Sendable () -> Int, marks: DeliveryMarks) async -> String? {
        var tracker = AckTracker<UInt>()
        var decoder: EsriFeatureDecoder?
        var announced: Schema?
        var errorCount = 0
        var failure: String?
        while !Task.isCancelled {
            // Run at most two fetches ahead of the output: what a restart delivers again stays small.
            if tracker.unacknowledged >= 2 * settings.batch {
                if let ready = tracker.acknowledgeable(written: written()) {
                    await acknowledge(ready)
                } else {
                    try? await Task.sleep(for: .milliseconds(2))
                }
                continue
            }
            // A fetch returns once its batch is full; a short one (100 ms, tried first) let the
            // server's pull requests expire while their messages were on the way, on a busy machine.
            guard let fetched = await thread.run({ self.fetch(milliseconds: 1000) }) else {
                failure = "consumer '\(settings.durable ?? "ephemeral")' of stream '\(stream)': the fetch failed; the connection is closed"
                break
            }
            var messages: [StreamMessage] = []
            var deliveries: [UInt64] = []
            let now = pipeline.clock.now()
            var counts = Counts()
            for message in fetched {
                counts.messages += 1
                counts.lastStreamSequence = message.streamSequence
                var carried = 0
                if let partition = settings.partition, let prefix = subjectPrefix,
                   !Self.belongs(subject: message.subject, prefix: prefix, partition: partition) {
                    counts.outsidePartition += 1
                } else if Self.isObservation(message.line) {
                    if decoder == nil {
                        var schema = Schema(fields: [])
                        if let field = message.trackField {
                            schema.appendField(Field(name: field, type: .string))
                            schema.trackIDIndex = 0
                        }
                        decoder = EsriFeatureDecoder(schema: schema)
                    }
                    let before = messages.count
                    do {
                        try decoder!.decode(message.line, receivedAt: Self.epoch(in: message.line) ?? now, into: &messages)
                    } catch {
                        errorCount += 1
                        counts.undecodable += 1
                        await pipeline.report(.store, "stream \(stream) sequence \(message.streamSequence): \(error)", count: errorCount)
                    }
                    carried = messages.count - before
                    let mark = message.deliveries > 1 ? message.deliveries : (message.streamSequence <= deliveredBefore ? 1 : 0)
                    for _ in 0..<carried { deliveries.append(mark) }
                    counts.observations += carried
                    if mark > 0 { counts.redelivered += 1 }
                } else {
                    counts.otherEvents += 1
                }
                tracker.handed(message.handle, observations: carried)
            }
            if let decoder, decoder.schema != announced {
                announced = decoder.schema
                await pipeline.schemaChanged(decoder.schema)
            }
            if !messages.isEmpty {
                marks.push(deliveries)
                await pipeline.receive(messages)
            }
            let added = counts
            counts = Counts()
            if let ready = tracker.acknowledgeable(written: written()) { await acknowledge(ready) }
            self.counts.withLock { total in
                total.messages += added.messages
                total.observations += added.observations
                total.redelivered += added.redelivered
                total.otherEvents += added.otherEvents
                total.undecodable += added.undecodable
                total.outsidePartition += added.outsidePartition
                if added.lastStreamSequence > 0 { total.lastStreamSequence = added.lastStreamSequence }
            }
        }
        // Unacknowledged messages are released unacknowledged: the server delivers them again.
        let left = tracker.acknowledgeable(written: .max)?.covered ?? []
        await thread.run { left.forEach { natsMsg_Destroy(OpaquePointer(bitPattern: $0)) } }
        return failure
    }

    /// Acknowledges `ready.last` (and so everything before it) and releases the messages.
    private func acknowledge(_ ready: (last: UInt, covered: [UInt])) async {
        await thread.run {
            _ = natsMsg_Ack(OpaquePointer(bitPattern: ready.last), nil)
            ready.covered.forEach { natsMsg_Destroy(OpaquePointer(bitPattern: $0)) }
        }
        counts.withLock { $0.acknowledged += ready.covered.count }
    }

    static func isObservation(_ line: [UInt8]) -> Bool {
        let prefix: StaticString = "{\"event\":\"observation\""
        guard line.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { expected in
            for index in 0..<expected.count where line[index] != expected[index] { return false }
            return true
        }
    }

    /// The `"epoch"` member of a line (the publisher's receive time), read without parsing the line.
    static func epoch(in line: [UInt8]) -> Int64? {
        let key = Array("\"epoch\":".utf8)
        guard line.count > key.count else { return nil }
        var index = 0
        let limit = line.count - key.count
        while index <= limit {
            if line[index] == key[0] && Array(line[index..<index + key.count]) == key {
                var cursor = index + key.count
                var value: Int64 = 0
                var digits = 0
                while cursor < line.count, line[cursor] >= 48, line[cursor] <= 57, digits < 16 {
                    value = value * 10 + Int64(line[cursor] - 48)
                    cursor += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            index += 1
        }
        return nil
    }

    /// Whether a stored subject `PREFIX.service.track.K` is in `partition`
    /// (the server's mapping and ours agree).
    static func belongs(subject: String, prefix: String, partition: TrackPartition) -> Bool {
        let rest = subject.dropFirst(prefix.count + 1).split(separator: ".", omittingEmptySubsequences: false)
        guard rest.count == 3 else { return false }
        return TrackPartition.partition(serviceToken: String(rest[0]), trackToken: String(rest[1]), count: partition.count) == partition.index
            && rest[2] == Substring(String(partition.index))
    }
}

/// Each consumed batch's delivery marks, handed from the consumer to the
/// store's enricher (which the store calls once per batch, in order): per
/// observation 0 (first delivery), 1 (delivered again, to a consumer started
/// again after its last acknowledged message: count unknown) or JetStream's
/// delivery count (2 or more).
public final class DeliveryMarks: Sendable {
    private let queue = LockedState<[[UInt64]]>([])
    public init() {}
    func push(_ deliveries: [UInt64]) { queue.withLock { $0.append(deliveries) } }
    func pop() -> [UInt64] { queue.withLock { $0.isEmpty ? [] : $0.removeFirst() } }
}

/// The store's enricher for a consumer: marks each observation that
/// JetStream delivered more than once with its delivery count, beside the
/// raster cells of `--enrich` (the inner enricher), if any.
public struct DeliveryEnricher: ObservationEnricher {
    let inner: (any ObservationEnricher)?
    let marks: DeliveryMarks

    public init(inner: (any ObservationEnricher)?, marks: DeliveryMarks) {
        self.inner = inner
        self.marks = marks
    }

    public func enrich(_ points: [Point?]) async -> ObservationEnrichments {
        var result = await inner?.enrich(points) ?? ObservationEnrichments(values: Array(repeating: nil, count: points.count))
        let deliveries = marks.pop()
        guard deliveries.count == points.count else { return result }
        for index in points.indices where deliveries[index] > 0 {
            result.values[index] = ObservationEnrichment(marking: result.values[index],
                                                         deliveries: deliveries[index] > 1 ? deliveries[index] : nil)
        }
        return result
    }
}
