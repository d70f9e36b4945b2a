import CLibNATS
import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamLocking
import EntityStreamModel

/// One fetch's messages, copied out of the client's messages (each released
/// at once) into a few buffers per batch rather than several allocations
/// per message: the lines one after the other, the acknowledgement subjects
/// (NUL-terminated, as the client sends them) and, only with `--partition`,
/// the subjects; what the acknowledgement subject says is read from its
/// bytes (``AckSubject``).
///
/// A fetch takes no more message once the buffers hold
/// ``ConsumerSettings/maximumBatchBytes`` (at most ``largestBatchBytes``),
/// so a batch stays near that size whatever the messages' sizes, and an
/// acknowledgement subject's offset fits the 32 bits the consumer gives it
/// in a message's key.
struct FetchedBatch: Sendable {
    /// The most ``ConsumerSettings/maximumBatchBytes`` may be.
    static let largestBatchBytes = 1 << 30

    struct Entry: Sendable {
        /// Where the line is in ``lines``.
        var lineStart: Int
        var lineEnd: Int
        /// Where the acknowledgement subject starts in ``replies``.
        var reply: Int
        /// Where the subject is in ``subjects`` (empty without `--partition`).
        var subjectStart: Int
        var subjectEnd: Int
        var streamSequence: UInt64
        var deliveries: UInt64
        /// Messages pending for the consumer after this one when it was delivered.
        var pending: UInt64
    }

    var lines: [UInt8] = []
    var replies: [UInt8] = []
    var subjects: [UInt8] = []
    var entries: [Entry] = []
    /// The track-field header the consumer found on the first observation carrying one, in this
    /// batch or an earlier one (the decoder is made from it).
    var trackField: String?

    /// Why the consumer cannot go on (nil: it can); what came before it is handed over first.
    var failure: String?

    var count: Int { entries.count }
    /// The bytes the buffers hold.
    var byteCount: Int { lines.count + replies.count + subjects.count }
    var isEmpty: Bool { entries.isEmpty }
    var streamSequences: [UInt64] { entries.map(\.streamSequence) }
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
    /// The track-field header of the first observation that carried one, kept for every later batch
    /// (the decoder is made from the first observation the consumer keeps, which may come in a later
    /// batch than the header, e.g. with `--partition`); once found, messages skip the lookup (libnats
    /// builds a header table per message for it). Touched only on ``thread``.
    private var trackField: String?
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
        pulls = PullRequests(batch: settings.batch, maximumBytes: Self.requestBytes(settings, maximumPayload: connection.maximumPayload),
                             expiresMilliseconds: Self.requestExpiresMilliseconds)
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

    /// Room for what the server counts in a message beside its payload (headers and data):
    /// its subject (at most a control line, 4 KiB by default) and its acknowledgement subject.
    static let messageOverheadBytes = 8 << 10

    /// The `max_bytes` of each pull request: the batch's byte bound, but never less than the
    /// largest message the server takes (its `max_payload`) with its subjects, which a request
    /// of fewer bytes could never deliver.
    static func requestBytes(_ settings: ConsumerSettings, maximumPayload: Int) -> Int {
        max(min(settings.maximumBatchBytes, FetchedBatch.largestBatchBytes), maximumPayload + messageOverheadBytes)
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
    func fetch(milliseconds: Int64) -> FetchedBatch? {
        while let body = pulls.request(now: Self.milliseconds()) {
            let status = body.withUnsafeBytes {
                natsConnection_PublishRequest(connection.handle, nextSubject, inbox, $0.baseAddress, Int32($0.count))
            }
            if status == NATS_CONNECTION_CLOSED { return nil }
            if status != NATS_OK {
                pulls.failed()
                Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
                return FetchedBatch()
            }
        }
        var fetched = FetchedBatch()
        fetched.entries.reserveCapacity(settings.batch)
        var wait = milliseconds
        let maximumBytes = min(settings.maximumBatchBytes, FetchedBatch.largestBatchBytes)
        while fetched.count < settings.batch && fetched.byteCount < maximumBytes {
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
            if let (code, description) = Self.status(of: message) {
                if pulls.status(code, description: description) == .messageLargerThanRequest {
                    fetched.failure = "the next message of stream '\(stream)' is larger than a pull request's \(pulls.maximumBytes) bytes"
                    break
                }
                continue
            }
            pulls.received()
            append(message, to: &fetched)
        }
        return fetched
    }

    /// Copies what the consumer keeps of a message into `batch`: its line, its
    /// acknowledgement subject and what that says, its subject only with
    /// `--partition`, and its track-field header until an observation has
    /// carried one (libnats builds a header table per message to look it up).
    private func append(_ message: OpaquePointer, to batch: inout FetchedBatch) {
        let length = Int(natsMsg_GetDataLength(message))
        let lineStart = batch.lines.count
        if length > 0, let data = natsMsg_GetData(message) {
            batch.lines.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
        }
        let lineEnd = batch.lines.count
        let replyStart = batch.replies.count
        var ack: AckSubject?
        if let reply = natsMsg_GetReply(message) {
            let replyLength = strlen(reply)
            let bytes = UnsafeRawBufferPointer(start: reply, count: replyLength)
            ack = AckSubject(bytes)
            batch.replies.append(contentsOf: bytes)
        }
        batch.replies.append(0)
        let subjectStart = batch.subjects.count
        if settings.partition != nil, let subject = natsMsg_GetSubject(message) {
            batch.subjects.append(contentsOf: UnsafeRawBufferPointer(start: subject, count: strlen(subject)))
        }
        if trackField == nil {
            var field: UnsafePointer<CChar>?
            if natsMsgHeader_Get(message, trackFieldHeader, &field) == NATS_OK, let field {
                let isObservation = batch.lines.withUnsafeBytes { Self.isObservation(UnsafeRawBufferPointer(rebasing: $0[lineStart..<lineEnd])) }
                if isObservation { trackField = String(cString: field) }
            }
        }
        if batch.trackField == nil { batch.trackField = trackField }
        batch.entries.append(FetchedBatch.Entry(lineStart: lineStart, lineEnd: lineEnd, reply: replyStart,
                                                subjectStart: subjectStart, subjectEnd: batch.subjects.count,
                                                streamSequence: ack?.streamSequence ?? 0, deliveries: ack?.deliveries ?? 1,
                                                pending: ack?.pending ?? 0))
    }

    /// Sends a pull request for `batch` messages outside ``PullRequests``'
    /// one-at-a-time rule: what an earlier process on the same inbox, or a
    /// fetch that gave up waiting, leaves on its way (tests).
    func sendPullRequest(batch: Int) {
        let body = PullRequests.body(batch: batch, maximumBytes: pulls.maximumBytes, expiresMilliseconds: Self.requestExpiresMilliseconds)
        _ = body.withUnsafeBytes { natsConnection_PublishRequest(connection.handle, nextSubject, inbox, $0.baseAddress, Int32($0.count)) }
        _ = natsConnection_Flush(connection.handle)
    }

    /// Sends the pull requests ``fetch(milliseconds:)`` would and reads what
    /// they bring until each has ended, taking nothing into a batch (tests):
    /// the messages and their data bytes. Blocking.
    func deliveredByOpenRequests() -> (messages: Int, bytes: Int) {
        while let body = pulls.request(now: Self.milliseconds()) {
            _ = body.withUnsafeBytes { natsConnection_PublishRequest(connection.handle, nextSubject, inbox, $0.baseAddress, Int32($0.count)) }
        }
        var delivered = (messages: 0, bytes: 0)
        while pulls.isOpen(now: Self.milliseconds()) {
            var message: OpaquePointer?
            guard natsSubscription_NextMsg(&message, subscription, 1000) == NATS_OK, let message else { continue }
            defer { natsMsg_Destroy(message) }
            if let (code, description) = Self.status(of: message) {
                pulls.status(code, description: description)
            } else {
                pulls.received()
                delivered.messages += 1
                delivered.bytes += Int(natsMsg_GetDataLength(message))
            }
        }
        return delivered
    }

    /// A status message's code ("408", "404", …) and description ("Request Timeout", …);
    /// nil for a stream message.
    static func status(of message: OpaquePointer) -> (code: String, description: String)? {
        guard natsMsg_GetDataLength(message) == 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard natsMsgHeader_Get(message, "Status", &value) == NATS_OK, let value else { return nil }
        let code = String(String(cString: value).prefix(3))
        var description: UnsafePointer<CChar>?
        guard natsMsgHeader_Get(message, "Description", &description) == NATS_OK, let description else { return (code, "") }
        return (code, String(cString: description))
    }

    /// Feeds `pipeline` until cancelled, until caught up (`--until-caught-up`)
    /// or until the subscription fails (the reason).
    /// `written` reads how many observation lines the output has written;
    /// `marks` carries each batch's delivery counts to the store's enricher.
    public func run(into pipeline: StreamPipeline, written: @escaping @Sendable () -> Int, marks: DeliveryMarks) async -> String? {
        // Each handed message by its batch (high 32 bits) and its acknowledgement subject's
        // offset in that batch's `replies` (low 32): the subjects stay in their batch's buffer
        // until a later acknowledgement covers them.
        var tracker = AckTracker<UInt64>()
        var replies = AcknowledgementSubjects()
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
                    await acknowledge(ready, in: &replies)
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
            let batchNumber = replies.append(fetched.replies)
            var messages: [StreamMessage] = []
            messages.reserveCapacity(fetched.count)
            var deliveries: [UInt64] = []
            deliveries.reserveCapacity(fetched.count)
            var undecodable: [(sequence: UInt64, error: JSONError)] = []
            let now = pipeline.clock.now()
            var counts = Counts()
            fetched.lines.withUnsafeBytes { lines in
                fetched.subjects.withUnsafeBytes { subjects in
                    for message in fetched.entries {
                        counts.messages += 1
                        counts.lastStreamSequence = message.streamSequence
                        var carried = 0
                        let line = UnsafeRawBufferPointer(rebasing: lines[message.lineStart..<message.lineEnd])
                        if let partition = settings.partition, let prefix = subjectPrefix,
                           !Self.belongs(subject: UnsafeRawBufferPointer(rebasing: subjects[message.subjectStart..<message.subjectEnd]),
                                         prefix: prefix, partition: partition) {
                            counts.outsidePartition += 1
                        } else if Self.isObservation(line) {
                            if decoder == nil {
                                var schema = Schema(fields: [])
                                if let field = fetched.trackField {
                                    schema.appendField(Field(name: field, type: .string))
                                    schema.trackIDIndex = 0
                                }
                                decoder = EsriFeatureDecoder(schema: schema)
                            }
                            let before = messages.count
                            do throws(JSONError) {
                                try decoder!.decode(line, receivedAt: Self.epoch(in: line) ?? now, into: &messages)
                            } catch {
                                counts.undecodable += 1
                                undecodable.append((message.streamSequence, error))
                            }
                            carried = messages.count - before
                            let mark = message.deliveries > 1 ? message.deliveries : (message.streamSequence <= deliveredBefore ? 1 : 0)
                            for _ in 0..<carried { deliveries.append(mark) }
                            counts.observations += carried
                            if mark > 0 { counts.redelivered += 1 }
                        } else {
                            counts.otherEvents += 1
                        }
                        tracker.handed(batchNumber << 32 | UInt64(message.reply), observations: carried)
                        catchUp.handed(streamSequence: message.streamSequence, pendingAfter: message.pending)
                    }
                }
            }
            for (sequence, error) in undecodable {
                errorCount += 1
                await pipeline.report(.store, "stream \(stream) sequence \(sequence): \(error)", count: errorCount)
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
            if let ready = tracker.acknowledgeable(written: written()) {
                await acknowledge(ready, in: &replies)
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
            if let reason = fetched.failure {
                failure = "consumer '\(settings.durable ?? "ephemeral")' of stream '\(stream)': \(reason)"
                break
            }
        }
        // A stop (--limit, --duration, a signal) first acknowledges what has been written by
        // then, so a restart delivers again only what was not; the rest stays unacknowledged
        // and comes again.
        if let ready = tracker.acknowledgeable(written: written()) { await acknowledge(ready, in: &replies) }
        return failure
    }

    /// Acknowledges `ready.last` and so, cumulatively, everything before it;
    /// the acknowledgement subjects of batches before its own are let go.
    private func acknowledge(_ ready: (last: UInt64, covered: [UInt64]), in replies: inout AcknowledgementSubjects) async {
        let connection = self.connection
        let subject = replies.subject(ready.last)
        replies.release(before: ready.last)
        if let subject {
            await thread.run {
                subject.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { _ = natsConnection_PublishString(connection.handle, $0.baseAddress, "+ACK") }
                }
            }
        }
        counts.withLock { $0.acknowledged += ready.covered.count }
    }

    static func isObservation(_ line: UnsafeRawBufferPointer) -> Bool {
        LiteralBytes.hasPrefix(line, "{\"event\":\"observation\"")
    }

    /// The `"epoch"` member of a line (the publisher's receive time), read without parsing the line.
    static func epoch(in line: UnsafeRawBufferPointer) -> Int64? {
        // `"epoch":` is 8 bytes: compared as one word at each quotation mark.
        let key: StaticString = "\"epoch\":"
        let word = UnsafeRawPointer(key.utf8Start).loadUnaligned(as: UInt64.self)
        guard let base = line.baseAddress, line.count > 8 else { return nil }
        var position = 0
        var cursor = -1
        while position + 8 <= line.count {
            guard let quote = memchr(base + position, Int32(UInt8(ascii: "\"")), line.count - 8 - position + 1) else { return nil }
            position = base.distance(to: UnsafeRawPointer(quote))
            if base.loadUnaligned(fromByteOffset: position, as: UInt64.self) == word {
                cursor = position + 8
                break
            }
            position += 1
        }
        guard cursor >= 0 else { return nil }
        var value: Int64 = 0
        var digits = 0
        while cursor < line.count, line[cursor] >= 48, line[cursor] <= 57, digits < 16 {
            value = value * 10 + Int64(line[cursor] - 48)
            cursor += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// Whether a stored subject `PREFIX.service.track.K` is in `partition`
    /// (the server's mapping and ours agree), read from its bytes.
    static func belongs(subject: UnsafeRawBufferPointer, prefix: String, partition: TrackPartition) -> Bool {
        let start = prefix.utf8.count + 1
        guard subject.count > start else { return false }
        let rest = UnsafeRawBufferPointer(rebasing: subject[start...])
        guard let firstDot = rest.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let afterService = UnsafeRawBufferPointer(rebasing: rest[(firstDot + 1)...])
        guard let secondDot = afterService.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let service = UnsafeRawBufferPointer(rebasing: rest[..<firstDot])
        let track = UnsafeRawBufferPointer(rebasing: afterService[..<secondDot])
        let index = UnsafeRawBufferPointer(rebasing: afterService[(secondDot + 1)...])
        let hash = FNV.hash32(track, into: FNV.hash32(service))
        guard Int(hash % UInt32(partition.count)) == partition.index, !index.isEmpty, !index.contains(UInt8(ascii: ".")) else { return false }
        return index.elementsEqual(String(partition.index).utf8)
    }
}

/// The acknowledgement subjects of the batches handed over and not yet
/// wholly acknowledged, one buffer per batch (NUL-terminated subjects one
/// after the other), numbered in the order they came.
struct AcknowledgementSubjects {
    private var batches: [(number: UInt64, subjects: [UInt8])] = []
    private var next: UInt64 = 0

    /// Keeps a batch's subjects; its number.
    mutating func append(_ subjects: [UInt8]) -> UInt64 {
        let number = next
        next += 1
        if !subjects.isEmpty { batches.append((number, subjects)) }
        return number
    }

    /// The NUL-terminated subject of a handed message (batch number << 32 | offset).
    func subject(_ message: UInt64) -> [UInt8]? {
        guard let batch = batches.first(where: { $0.number == message >> 32 }) else { return nil }
        let start = Int(message & 0xFFFF_FFFF)
        guard let end = batch.subjects[start...].firstIndex(of: 0) else { return nil }
        return Array(batch.subjects[start...end])
    }

    /// Lets go the batches before the one of `message`: acknowledging it covers them.
    mutating func release(before message: UInt64) {
        batches.removeAll { $0.number < message >> 32 }
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
