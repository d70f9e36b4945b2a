import CLibNATS
import Foundation
import EntityStreamLocking

/// Why ``OutgoingBatch/append(subject:id:writeLine:)`` did not take a message.
public enum OutgoingBatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message (its line and headers) is larger than the server takes (its `max_payload`).
    case messageTooLarge(bytes: Int, limit: Int)
    /// The message with its subject and id is larger than an empty batch's buffer
    /// (`limit` bytes, what its 32-bit offsets reach): no batch can take it.
    case largerThanABatch(bytes: Int, limit: Int)
    /// The batch's buffer, addressed with 32-bit offsets, cannot take the message after what it
    /// holds: publish the batch, then append the message to a new one.
    case full

    public var description: String {
        switch self {
        case .messageTooLarge(let bytes, let limit):
            return "a message of \(bytes) bytes is larger than the server takes (max_payload \(limit) bytes)"
        case .largerThanABatch(let bytes, let limit):
            return "a message of \(bytes) bytes with its subject and id is larger than a publish batch holds (\(limit) bytes)"
        case .full: return "the batch is full"
        }
    }
}

/// A batch of messages to publish, in one buffer: each message's subject
/// and `Nats-Msg-Id` (NUL-terminated, as the client takes them) and its
/// JSON line. One allocation per batch instead of several per message.
///
/// Offsets into the buffer are 32 bits (as the client takes a length): a
/// message that would end past them is refused (``OutgoingBatchError/full``),
/// as is one larger than ``maximumMessageBytes``, never wrapped or trapped on.
public struct OutgoingBatch: Sendable {
    var bytes: [UInt8] = []
    /// Per message: where its subject, id and line start, and the line's length.
    var entries: [(subject: Int32, id: Int32, line: Int32, length: Int32)] = []
    /// The track field's name, sent as a header with every message.
    public var trackField: String?
    /// The largest message, line and headers, the server takes (its `max_payload`).
    public let maximumMessageBytes: Int
    /// The most bytes the buffer may hold: what its 32-bit offsets reach (less in tests).
    let largestBufferBytes: Int

    public init(maximumMessageBytes: Int = Int(Int32.max)) {
        self.init(maximumMessageBytes: maximumMessageBytes, largestBufferBytes: Int(Int32.max))
    }

    init(maximumMessageBytes: Int, largestBufferBytes: Int) {
        self.maximumMessageBytes = maximumMessageBytes
        self.largestBufferBytes = min(largestBufferBytes, Int(Int32.max))
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    /// The bytes the buffer holds.
    public var byteCount: Int { bytes.count }

    /// The headers a message with `id` carries, as the client sends them (what the server
    /// counts against `max_payload` with the line).
    func headerBytes(id: String) -> Int {
        let field = trackField.map { trackFieldHeader.utf8.count + 2 + $0.utf8.count + 2 } ?? 0
        return "NATS/1.0\r\n".utf8.count + "Nats-Msg-Id: ".utf8.count + id.utf8.count + 2 + field + 2
    }

    /// Appends one message; `writeLine` appends its line to the buffer. A
    /// message that is too large, or that the buffer's offsets cannot reach,
    /// is taken out again and the batch is as it was.
    public mutating func append(subject: String, id: String, writeLine: (inout [UInt8]) -> Void) throws(OutgoingBatchError) {
        let subjectStart = bytes.count
        bytes.append(contentsOf: subject.utf8)
        bytes.append(0)
        let idStart = bytes.count
        bytes.append(contentsOf: id.utf8)
        bytes.append(0)
        let lineStart = bytes.count
        writeLine(&bytes)
        let length = bytes.count - lineStart
        let message = length + headerBytes(id: id)
        if message > maximumMessageBytes {
            bytes.removeSubrange(subjectStart...)
            throw .messageTooLarge(bytes: message, limit: maximumMessageBytes)
        }
        guard bytes.count <= largestBufferBytes, let start = Int32(exactly: subjectStart), let idOffset = Int32(exactly: idStart),
              let lineOffset = Int32(exactly: lineStart), let lineLength = Int32(exactly: length) else {
            let alone = bytes.count - subjectStart
            bytes.removeSubrange(subjectStart...)
            if subjectStart == 0 { throw .largerThanABatch(bytes: alone, limit: largestBufferBytes) }
            throw .full
        }
        entries.append((start, idOffset, lineOffset, lineLength))
    }

    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }
}

/// The header naming the field that identifies an entity, so a consumer
/// keys its store as the publisher did.
public let trackFieldHeader = "Entitystream-Track-Field"

/// Publishes to JetStream asynchronously with a bounded window of
/// unacknowledged messages (``PublishWindow``): the I/O shell around it.
///
/// ``publish(_:)`` blocks its caller (a ``BlockingIOThread``, never the
/// cooperative pool) while the window is full, which is how back-pressure
/// reaches the source. Acknowledgements arrive on the client's thread. When
/// the oldest unacknowledged message is older than ``ackWaitMilliseconds``
/// (a lost broker, a lost acknowledgement) the retry thread takes every
/// unacknowledged message back from the client (its pending list) and the
/// window sends them again, oldest first, with their same `Nats-Msg-Id`;
/// messages that met no responders or could not be handed over go the same
/// way; a message the server rejects is abandoned and reported through
/// `onProblem`.
public final class JetStreamPublisher: @unchecked Sendable {
    public let connection: NATSConnection
    public let ackWaitMilliseconds: Int64
    private let context: OpaquePointer
    private let condition = NSCondition()
    private var window: PublishWindow<UInt>
    /// The window's sequence number of each message the client holds (by its address).
    private var sequences: [UInt: UInt64] = [:]
    private var nextSequence: UInt64 = 0
    private var stopping = false
    private let onProblem: @Sendable (String) -> Void
    private var reportedNoStream = false
    private var retryThread: Thread?
    /// The publishing thread waits for room: wake it when half the window is free.
    private var publisherWaiting = false

    /// Totals so far (stored, duplicates, resent, abandoned, in flight).
    public struct Totals: Sendable, Hashable {
        public var stored = 0, duplicates = 0, resent = 0, abandoned = 0, inFlight = 0
    }

    public init(connection: NATSConnection, window capacity: Int = 4096, ackWaitMilliseconds: Int64 = 5000,
                onProblem: @escaping @Sendable (String) -> Void) throws(JetStreamError) {
        self.connection = connection
        self.ackWaitMilliseconds = ackWaitMilliseconds
        self.onProblem = onProblem
        window = PublishWindow(capacity: capacity)
        let box = Box()
        context = try connection.jetStream { options in
            // The window bounds what is in flight; the client's own limit sits above it so it never stalls a resend.
            options.PublishAsync.MaxPending = Int64(capacity * 2 + 16)
            options.PublishAsync.AckHandler = { _, message, ack, failure, closure in
                guard let closure, let message else { return }
                let publisher = Unmanaged<Box>.fromOpaque(closure).takeUnretainedValue().publisher
                publisher?.answered(message, ack: ack, failure: failure)
            }
            // Retained for good: an acknowledgement may arrive on the client's thread after the
            // publisher is gone (the box's reference to it is weak); one small object per publisher.
            options.PublishAsync.AckHandlerClosure = Unmanaged.passRetained(box).toOpaque()
        }
        self.box = box
        box.publisher = self
        let thread = Thread { [unowned self] in self.retryLoop() }
        thread.name = "entitystream-jetstream-retry"
        thread.stackSize = 1 << 20
        retryThread = thread
        thread.start()
    }

    /// The acknowledgement handler's way back to the publisher (weak, so the handler never keeps it alive).
    private final class Box: @unchecked Sendable {
        weak var publisher: JetStreamPublisher?
    }
    private var box: Box?

    deinit {
        jsCtx_Destroy(context)
    }

    /// Creates (or updates) the stream that takes `PREFIX.>`.
    public func createStream(_ settings: StreamSettings, subjectPrefix: String) throws(JetStreamError) {
        try Streams.create(settings, subjects: ["\(subjectPrefix).>"], in: context)
    }

    public var totals: Totals {
        condition.lock()
        defer { condition.unlock() }
        return Totals(stored: window.stored, duplicates: window.duplicates, resent: window.resent, abandoned: window.abandoned,
                      inFlight: window.inFlight)
    }

    /// Hands every message to the client, waiting while the window is full. Blocking.
    public func publish(_ batch: OutgoingBatch) {
        batch.bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            for entry in batch.entries {
                var created: OpaquePointer?
                let status = natsMsg_Create(&created, base.advanced(by: Int(entry.subject)).assumingMemoryBound(to: CChar.self), nil,
                                            base.advanced(by: Int(entry.line)).assumingMemoryBound(to: CChar.self), entry.length)
                guard status == NATS_OK, let message = created else {
                    onProblem("cannot make a NATS message: \(JetStreamError.text(status))")
                    continue
                }
                _ = natsMsgHeader_Set(message, "Nats-Msg-Id", base.advanced(by: Int(entry.id)).assumingMemoryBound(to: CChar.self))
                if let field = batch.trackField { _ = natsMsgHeader_Set(message, trackFieldHeader, field) }
                condition.lock()
                while !window.hasRoom && !stopping {
                    publisherWaiting = true
                    condition.wait()
                }
                publisherWaiting = false
                if stopping {
                    condition.unlock()
                    natsMsg_Destroy(message)
                    return
                }
                let sequence = nextSequence
                nextSequence += 1
                sequences[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(message)))] = sequence
                window.sent(sequence, at: Self.now())
                condition.unlock()
                send(message, sequence: sequence)
            }
        }
        // The retry thread watches the acknowledgement wait from the oldest message on.
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Counts a message that was never handed over (``OutgoingBatchError``)
    /// with the abandoned ones, and reports why.
    public func refuse(_ error: OutgoingBatchError) {
        condition.lock()
        window.refused()
        condition.unlock()
        onProblem("message not published: \(error)")
    }

    /// Waits until everything sent is stored (or abandoned), or `timeout`
    /// seconds pass; false if messages are still in flight. Blocking.
    public func drain(timeout seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !window.isDrained {
            if !condition.wait(until: deadline) { return window.isDrained }
        }
        return true
    }

    /// Stops the retry thread (after ``drain(timeout:)``).
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Hands one message (in the window) to the client; a message the client
    /// cannot take now goes back to the window, to be sent again in order.
    private func send(_ message: OpaquePointer, sequence: UInt64) {
        var pointer: OpaquePointer? = message
        // While the connection is down the client would hold the first message and send it on
        // reconnection, ahead of the ones lost with the old socket: it is refused here instead
        // (and the 1-byte reconnect buffer refuses the rest), then sent again in order.
        let status = natsConnection_Status(connection.handle) == NATS_CONN_STATUS_CONNECTED
            ? js_PublishMsgAsync(context, &pointer, nil) : NATS_CONNECTION_DISCONNECTED
        if status != NATS_OK, let pointer {
            let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))
            // Larger than the server takes: it never will, so it is not sent again.
            let failure: PublishWindow<UInt>.Failure = status == NATS_MAX_PAYLOAD
                ? .tooLarge(limit: connection.maximumPayload) : .connection
            condition.lock()
            let decision = window.failed(sequence, address, failure, now: Self.now())
            if case .abandon = decision { sequences[address] = nil }
            condition.broadcast()
            condition.unlock()
            if case .abandon(let reason) = decision {
                onProblem(reason)
                natsMsg_Destroy(pointer)
            }
        }
    }

    /// An acknowledgement or a failure for `message`, on the client's thread.
    private func answered(_ message: OpaquePointer, ack: UnsafeMutablePointer<jsPubAck>?, failure: UnsafeMutablePointer<jsPubAckErr>?) {
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(message)))
        condition.lock()
        guard let sequence = sequences[address] else {
            // Not one of ours (cannot happen): leave it to the client.
            condition.unlock()
            return
        }
        if let ack {
            sequences[address] = nil
            window.stored(sequence, duplicate: ack.pointee.Duplicate)
            // Wake the publisher once half the window is free, and a drain when all is answered.
            if (publisherWaiting && window.inFlight <= window.capacity / 2) || window.isDrained || window.retriesDue != nil {
                condition.broadcast()
            }
            condition.unlock()
            natsMsg_Destroy(message)
            return
        }
        let kind: PublishWindow<UInt>.Failure
        if let failure {
            switch failure.pointee.Err {
            case NATS_TIMEOUT: kind = .timeout
            case NATS_NO_RESPONDERS: kind = .noResponders
            case NATS_CONNECTION_CLOSED, NATS_CONNECTION_DISCONNECTED, NATS_STALE_CONNECTION: kind = .connection
            default:
                let code = Int(failure.pointee.ErrCode.rawValue)
                kind = code == 0 ? .connection
                    : .rejected(code: code, text: failure.pointee.ErrText.map { String(cString: $0) } ?? "no reason given")
            }
        } else {
            kind = .connection
        }
        let decision = window.failed(sequence, address, kind, now: Self.now())
        if case .abandon = decision { sequences[address] = nil }
        var reportNoStream = false
        if kind == .noResponders && !reportedNoStream {
            reportedNoStream = true
            reportNoStream = true
        }
        condition.broadcast()
        condition.unlock()
        if reportNoStream {
            let subject = natsMsg_GetSubject(message).map { String(cString: $0) } ?? "?"
            onProblem("no JetStream stream answered for \(subject) (none takes the subject, or its leader is being elected); holding the messages and retrying")
        }
        if case .abandon(let reason) = decision {
            onProblem(reason)
            natsMsg_Destroy(message)
        }
    }

    /// Takes every unacknowledged message back from the client: each fails as a timeout.
    private func reclaimUnacknowledged() {
        var pending = natsMsgList()
        guard js_PublishAsyncGetPendingList(&pending, context) == NATS_OK else { return }
        let now = Self.now()
        condition.lock()
        for index in 0..<Int(pending.Count) {
            guard let message = pending.Msgs[index] else { continue }
            let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(message)))
            guard let sequence = sequences[address] else { continue }
            window.failed(sequence, address, .timeout, now: now)
            // Ours again: not destroyed with the list.
            pending.Msgs[index] = nil
        }
        condition.broadcast()
        condition.unlock()
        natsMsgList_Destroy(&pending)
    }

    /// Sends failed messages again when they are due, and reclaims messages
    /// whose acknowledgement is overdue.
    private func retryLoop() {
        while true {
            condition.lock()
            var overdue = false
            while !stopping {
                let now = Self.now()
                if let due = window.retriesDue, due <= now { break }
                let oldest = window.oldestUnansweredSentAt()
                if let oldest, oldest + ackWaitMilliseconds <= now {
                    overdue = true
                    break
                }
                let wake = [window.retriesDue, oldest.map { $0 + ackWaitMilliseconds }].compactMap { $0 }.min()
                if let wake {
                    _ = condition.wait(until: Date(timeIntervalSince1970: Double(wake) / 1000))
                } else {
                    condition.wait()
                }
            }
            if stopping {
                // Messages still held are the client's no longer: released (reported by drain's count).
                let left = window.takeDueRetries(now: .max)
                for entry in left { sequences[entry.message] = nil }
                condition.unlock()
                for entry in left { natsMsg_Destroy(OpaquePointer(bitPattern: entry.message)) }
                return
            }
            if overdue {
                condition.unlock()
                reclaimUnacknowledged()
                continue
            }
            let due = window.takeDueRetries(now: Self.now())
            condition.unlock()
            for entry in due {
                if let pointer = OpaquePointer(bitPattern: entry.message) { send(pointer, sequence: entry.sequence) }
            }
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
