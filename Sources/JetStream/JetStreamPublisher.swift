import CLibNATS
import Foundation
import Locking

/// One message to publish: its subject, deduplication id, track field and the JSON line.
public struct OutgoingMessage: Sendable {
    public var subject: String
    public var messageID: String
    public var trackField: String?
    public var line: [UInt8]

    public init(subject: String, messageID: String, trackField: String?, line: [UInt8]) {
        self.subject = subject
        self.messageID = messageID
        self.trackField = trackField
        self.line = line
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
/// reaches the source. Acknowledgements arrive on the client's thread; a
/// message that was not acknowledged within ``ackWaitMilliseconds`` (a lost
/// broker, a lost acknowledgement) or met no responders is sent again by
/// the retry thread with its same `Nats-Msg-Id`, until stored; a message the
/// server rejects is abandoned and reported through `onProblem`.
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
            options.PublishAsync.AckHandlerClosure = Unmanaged.passUnretained(box).toOpaque()
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
    public func publish(_ messages: [OutgoingMessage]) {
        for outgoing in messages {
            guard let message = makeMessage(outgoing) else {
                onProblem("cannot make a NATS message for subject \(outgoing.subject)")
                continue
            }
            condition.lock()
            while !window.hasRoom && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                natsMsg_Destroy(message)
                return
            }
            let sequence = nextSequence
            nextSequence += 1
            let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(message)))
            sequences[address] = sequence
            window.sent(sequence)
            condition.unlock()
            send(message, sequence: sequence)
        }
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

    private func makeMessage(_ outgoing: OutgoingMessage) -> OpaquePointer? {
        var message: OpaquePointer?
        let status = outgoing.line.withUnsafeBytes { bytes in
            natsMsg_Create(&message, outgoing.subject, nil, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        }
        guard status == NATS_OK, let message else { return nil }
        _ = natsMsgHeader_Set(message, "Nats-Msg-Id", outgoing.messageID)
        if let field = outgoing.trackField { _ = natsMsgHeader_Set(message, trackFieldHeader, field) }
        return message
    }

    /// Hands one message (in the window) to the client; a message the client
    /// cannot take now is scheduled again.
    private func send(_ message: OpaquePointer, sequence: UInt64) {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = ackWaitMilliseconds
        var pointer: OpaquePointer? = message
        let status = js_PublishMsgAsync(context, &pointer, &options)
        if status != NATS_OK, let pointer {
            condition.lock()
            window.failed(sequence, UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer))), .connection, now: Self.now())
            condition.broadcast()
            condition.unlock()
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
            condition.broadcast()
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

    /// Sends failed messages again when they are due.
    private func retryLoop() {
        while true {
            condition.lock()
            while !stopping {
                if let due = window.retriesDue {
                    if due <= Self.now() { break }
                    _ = condition.wait(until: Date(timeIntervalSince1970: Double(due) / 1000))
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
            let due = window.takeDueRetries(now: Self.now())
            condition.unlock()
            for entry in due {
                if let pointer = OpaquePointer(bitPattern: entry.message) { send(pointer, sequence: entry.sequence) }
            }
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
