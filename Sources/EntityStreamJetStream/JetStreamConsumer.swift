import CLibNATS
import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamLocking
import EntityStreamModel

/// One message fetched from the stream, copied out of the client's message
/// (which is released at once: only its acknowledgement subject is kept).
struct FetchedMessage: Sendable {
    /// Where its acknowledgement goes (JetStream's `$JS.ACK…` reply subject).
    let reply: String
    /// Empty unless the consumer takes a partition (it checks each subject then).
    let subject: String
    let line: [UInt8]
    /// Read until an observation has carried it (the decoder needs the first one's).
    let trackField: String?
    let streamSequence: UInt64
    let deliveries: UInt64
    /// Messages pending for the consumer after this one when it was delivered.
    let pending: UInt64
}

/// Reads a stream through a durable pull consumer and feeds a
/// ``StreamPipeline``, acknowledging each message only once its observation
/// has been stored and its line written (``AckTracker`` against the
/// output's flushed-observation count). Messages are acknowledged
/// cumulatively ("ack all"); a consumer killed and started again with the
/// same durable name receives again exactly the messages whose lines were
/// not yet acknowledged, each marked with JetStream's delivery count.
///
/// Pull requests are its own (``PullRequests``), sent on a plain
/// subscription to an inbox: libnats 3.4.1's `natsSubscription_Fetch`
/// overflows its message array when an earlier request's messages are
/// still arriving.
public final class JetStreamConsumer: @unchecked Sendable {
    public let connection: NATSConnection
    public let stream: String
    public let settings: ConsumerSettings
    private let context: OpaquePointer
    /// The plain subscription to ``inbox`` the requested messages arrive on.
    private let subscription: OpaquePointer
    private let inbox: String
    /// `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`: where pull requests go.
    private let nextSubject: String
    /// The consumer's name (the durable name, or the server's for an ephemeral one).
    public let consumerName: String
    private let thread = BlockingIOThread(name: "entitystream-consume")
    /// The stream's subject prefix (`PREFIX.>`), when it has one.
    public let subjectPrefix: String?
    /// How the consumer started: created, or continued.
    public let startDescription: String
    /// Stream sequences up to this one were delivered to this durable consumer
    /// before it was started again: each is marked redelivered.
    private let deliveredBefore: UInt64
    /// Where `--until-caught-up` stops (its state at start).
    private let catchUpAtStart: CatchUp
    private let counts = LockedState(Counts())
    /// Touched only on ``thread``.
    private var pulls: PullRequests
    /// Whether an observation has carried the track-field header: the decoder is made from the first
    /// one, so later messages skip the lookup (libnats builds a header table per message for it).
    /// Touched only on ``thread``.
    private var sawTrackField = false
    /// How long the server keeps a pull request waiting for messages.
    static let requestExpiresMilliseconds: Int64 = 5_000
    /// How long a fetch waits for the next message its open request owes
    /// before it hands over what it has (what a live tail's line may wait).
    static let gapMilliseconds: Int64 = 20

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
        /// Set when `--until-caught-up` ended the run.
        public var caughtUp = false
    }

    public var currentCounts: Counts { counts.withLock { $0 } }

    public init(connection: NATSConnection, stream: String, settings: ConsumerSettings) throws(JetStreamError) {
        self.connection = connection
        self.stream = stream
        self.settings = settings
        pulls = PullRequests(batch: settings.batch, expiresMilliseconds: Self.requestExpiresMilliseconds)
        let context = try connection.jetStream()
        self.context = context
        let description: Streams.Description
        do { description = try Streams.describe(stream, in: context) } catch {
            jsCtx_Destroy(context)
            throw error
        }
        let subjects = description.subjects
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
        let subject = filter ?? subjectPrefix.map { "\($0).>" }
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
                   !current.isEmpty, let subject, current != subject {
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
        let info: UnsafeMutablePointer<jsConsumerInfo>
        do throws(Streams.CallFailure) {
            info = try Streams.retrying(patience: 30) { () throws(Streams.CallFailure) in
                var info: UnsafeMutablePointer<jsConsumerInfo>?
                var code = jsErrCode(rawValue: 0)
                let status: natsStatus
                if existing, let durable = settings.durable {
                    status = js_GetConsumerInfo(&info, context, stream, durable, nil, &code)
                } else {
                    status = Self.create(&info, in: context, stream: stream, settings: settings, start: start, filter: subject, code: &code)
                }
                guard status == NATS_OK, let info else { throw Streams.CallFailure(status: status, code: code) }
                return info
            }
        } catch {
            jsCtx_Destroy(context)
            throw .consumer(name: settings.durable ?? "ephemeral", reason: JetStreamError.text(error.status, errorCode: error.code))
        }
        let name = info.pointee.Name.map { String(cString: $0) } ?? settings.durable ?? ""
        catchUpAtStart = CatchUp(lastSequenceAtStart: description.lastSequence, pendingAtStart: info.pointee.NumPending,
                                 unacknowledgedAtStart: Int(info.pointee.NumAckPending))
        jsConsumerInfo_Destroy(info)
        consumerName = name
        nextSubject = "$JS.API.CONSUMER.MSG.NEXT.\(stream).\(name)"
        var inboxText: UnsafeMutablePointer<natsInbox>?
        guard natsInbox_Create(&inboxText) == NATS_OK, let inboxText else {
            jsCtx_Destroy(context)
            throw .consumer(name: name, reason: "cannot make an inbox")
        }
        inbox = String(cString: inboxText)
        natsInbox_Destroy(inboxText)
        var subscription: OpaquePointer?
        let status = natsConnection_SubscribeSync(&subscription, connection.handle, inbox)
        guard status == NATS_OK, let subscription else {
            jsCtx_Destroy(context)
            throw .consumer(name: name, reason: JetStreamError.text(status))
        }
        // What waits here is bounded by the requests (a batch each), not by the client's
        // limits: past those it would drop messages, and a later cumulative acknowledgement
        // would then acknowledge them unseen.
        _ = natsSubscription_SetPendingLimits(subscription, -1, -1)
        self.subscription = subscription
    }

    /// Creates the pull consumer (acknowledging all up to a message, starting at `start`).
    private static func create(_ info: inout UnsafeMutablePointer<jsConsumerInfo>?, in context: OpaquePointer, stream: String,
                               settings: ConsumerSettings, start: ConsumerSettings.Start, filter: String?, code: inout jsErrCode) -> natsStatus {
        var config = jsConsumerConfig()
        jsConsumerConfig_Init(&config)
        let durableName = settings.durable.flatMap { strdup($0) }
        let filterText = filter.flatMap { strdup($0) }
        defer {
            if let durableName { free(durableName) }
            if let filterText { free(filterText) }
        }
        config.Durable = durableName.map { UnsafePointer($0) }
        config.FilterSubject = filterText.map { UnsafePointer($0) }
        config.AckPolicy = js_AckAll
        config.MaxAckPending = Int64(settings.maximumAckPending)
        config.AckWait = Int64(settings.ackWaitSeconds) * 1_000_000_000
        switch start {
        case .new: config.DeliverPolicy = js_DeliverNew
        case .first: config.DeliverPolicy = js_DeliverAll
        case .time(let milliseconds):
            config.DeliverPolicy = js_DeliverByStartTime
            config.OptStartTime = milliseconds * 1_000_000
        case .sequence(let sequence):
            config.DeliverPolicy = js_DeliverByStartSequence
            config.OptStartSeq = sequence
        }
        return js_AddConsumer(&info, context, stream, &config, nil, &code)
    }

    deinit {
        natsSubscription_Unsubscribe(subscription)
        natsSubscription_Destroy(subscription)
        jsCtx_Destroy(context)
    }

    static func milliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Sends pull requests until two are open (``PullRequests``), then takes
    /// what has arrived (at most a batch), waiting at most `milliseconds` for
    /// the first message; an empty batch also when the connection is down or
    /// a leader is being elected (the next call asks again); nil once the
    /// subscription is closed. Blocking; runs on ``thread`` only.
    func fetch(milliseconds: Int64) -> [FetchedMessage]? {
        while let body = pulls.request(now: Self.milliseconds()) {
            let status = body.withUnsafeBytes {
                natsConnection_PublishRequest(connection.handle, nextSubject, inbox, $0.baseAddress, Int32($0.count))
            }
            if status == NATS_CONNECTION_CLOSED { return nil }
            if status != NATS_OK {
                pulls.failed()
                Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
                return []
            }
        }
        var fetched: [FetchedMessage] = []
        var wait = milliseconds
        while fetched.count < settings.batch {
            var message: OpaquePointer?
            let status = natsSubscription_NextMsg(&message, subscription, wait)
            if status == NATS_CONNECTION_CLOSED || status == NATS_INVALID_SUBSCRIPTION { return fetched.isEmpty ? nil : fetched }
            guard status == NATS_OK, let message else {
                // No responders: JetStream is not answering for the consumer (a leader being elected).
                if status == NATS_NO_RESPONDERS {
                    pulls.failed()
                    if fetched.isEmpty { Thread.sleep(forTimeInterval: Double(milliseconds) / 1000) }
                }
                break
            }
            defer { natsMsg_Destroy(message) }
            // While the open request owes messages they are on their way: wait briefly for
            // them (one full batch costs the pipeline less than many small ones); after
            // that, take only what is already here.
            wait = pulls.owed > 0 ? Self.gapMilliseconds : 0
            if let code = Self.statusCode(of: message) {
                pulls.status(code)
                continue
            }
            pulls.received()
            let copied = Self.copy(message, trackField: !sawTrackField, subject: settings.partition != nil)
            if copied.trackField != nil && Self.isObservation(copied.line) { sawTrackField = true }
            fetched.append(copied)
        }
        return fetched
    }

    /// Sends a pull request for `batch` messages outside ``PullRequests``'
    /// one-at-a-time rule: what an earlier process on the same inbox, or a
    /// fetch that gave up waiting, leaves on its way (tests).
    func sendPullRequest(batch: Int) {
        let body = Array("{\"batch\":\(batch),\"expires\":\(Self.requestExpiresMilliseconds * 1_000_000)}".utf8)
        _ = body.withUnsafeBytes { natsConnection_PublishRequest(connection.handle, nextSubject, inbox, $0.baseAddress, Int32($0.count)) }
        _ = natsConnection_Flush(connection.handle)
    }

    /// A status message's code ("408", "404", …); nil for a stream message.
    static func statusCode(of message: OpaquePointer) -> String? {
        guard natsMsg_GetDataLength(message) == 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard natsMsgHeader_Get(message, "Status", &value) == NATS_OK, let value else { return nil }
        return String(String(cString: value).prefix(3))
    }

    /// What the consumer keeps of a message: its track-field header and its
    /// subject only when asked for (each costs allocations per message).
    private static func copy(_ message: OpaquePointer, trackField wantsTrackField: Bool, subject wantsSubject: Bool) -> FetchedMessage {
        let length = Int(natsMsg_GetDataLength(message))
        var line = [UInt8](repeating: 0, count: length)
        if length > 0, let data = natsMsg_GetData(message) {
            line.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: length)) }
        }
        var field: UnsafePointer<CChar>?
        let trackField = wantsTrackField && natsMsgHeader_Get(message, trackFieldHeader, &field) == NATS_OK ? field.map { String(cString: $0) } : nil
        var meta: UnsafeMutablePointer<jsMsgMetaData>?
        var sequence: UInt64 = 0
        var deliveries: UInt64 = 1
        var pending: UInt64 = 0
        if natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta {
            sequence = meta.pointee.Sequence.Stream
            deliveries = meta.pointee.NumDelivered
            pending = meta.pointee.NumPending
            jsMsgMetaData_Destroy(meta)
        }
        return FetchedMessage(reply: natsMsg_GetReply(message).map { String(cString: $0) } ?? "",
                              subject: wantsSubject ? natsMsg_GetSubject(message).map { String(cString: $0) } ?? "" : "",
                              line: line, trackField: trackField, streamSequence: sequence, deliveries: deliveries, pending: pending)
    }

    /// Feeds `pipeline` until cancelled, until caught up (`--until-caught-up`)
    /// or until the subscription fails (the reason).
    /// `written` reads how many observation lines the output has written;
    /// `marks` carries each batch's delivery counts to the store's enricher.
    public func run(into pipeline: StreamPipeline, written: @escaping @Sendable () -> Int, marks: DeliveryMarks) async -> String? {
        var tracker = AckTracker<String>()
        var catchUp = catchUpAtStart
        var decoder: EsriFeatureDecoder?
        var announced: Schema?
        var errorCount = 0
        var failure: String?
        while !Task.isCancelled {
            if settings.untilCaughtUp && catchUp.isCaughtUp {
                // The acknowledgements reach the server before the run ends.
                let connection = self.connection
                await thread.run { _ = natsConnection_FlushTimeout(connection.handle, 5000) }
                counts.withLock { $0.caughtUp = true }
                break
            }
            // Hand over at most two batches more than the output has done with, with at most two
            // more requested (PullRequests): what a restart delivers again stays under four
            // batches. Caught up, only the acknowledgements are left to wait for.
            let allHanded = settings.untilCaughtUp && catchUp.target.map { catchUp.handed >= $0 } == true
            if tracker.unacknowledged >= 2 * settings.batch || allHanded {
                if let ready = tracker.acknowledgeable(written: written()) {
                    await acknowledge(ready)
                    catchUp.acknowledged(ready.covered.count)
                } else {
                    try? await Task.sleep(for: .milliseconds(2))
                }
                continue
            }
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
                tracker.handed(message.reply, observations: carried)
                catchUp.handed(streamSequence: message.streamSequence, pendingAfter: message.pending)
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
            if let ready = tracker.acknowledgeable(written: written()) {
                await acknowledge(ready)
                catchUp.acknowledged(ready.covered.count)
            }
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
        // A stop (--limit, --duration, a signal) first acknowledges what has been written by
        // then, so a restart delivers again only what was not; the rest stays unacknowledged
        // and comes again.
        if let ready = tracker.acknowledgeable(written: written()) { await acknowledge(ready) }
        return failure
    }

    /// Acknowledges `ready.last` and so, cumulatively, everything before it.
    private func acknowledge(_ ready: (last: String, covered: [String])) async {
        let connection = self.connection
        await thread.run { _ = natsConnection_PublishString(connection.handle, ready.last, "+ACK") }
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
