import CLibNATS
import Foundation
import EntityStreamLocking
import Synchronization

/// A failure of the NATS or JetStream client, classified by where it happened.
public enum JetStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No server of the address could be reached (or the credentials were refused).
    case connect(address: String, reason: String)
    /// The stream could not be found, created or read.
    case stream(name: String, reason: String)
    /// The consumer could not be created or read from.
    case consumer(name: String, reason: String)
    /// A request (a fleet query) could not be sent.
    case request(String)

    public var description: String {
        switch self {
        case .connect(let address, let reason): return "cannot connect to \(address): \(reason)"
        case .stream(let name, let reason): return "stream '\(name)': \(reason)"
        case .consumer(let name, let reason): return "consumer '\(name)': \(reason)"
        case .request(let reason): return "request: \(reason)"
        }
    }

    /// The client's text for a status, with its last error's detail when it has one.
    static func text(_ status: natsStatus, errorCode: jsErrCode = jsErrCode(rawValue: 0)) -> String {
        var detail = String(cString: natsStatus_GetText(status))
        var last = NATS_OK
        if let message = nats_GetLastError(&last), last == status {
            let text = String(cString: message)
            if !text.isEmpty && text != detail { detail += " (\(text))" }
        }
        if errorCode.rawValue != 0 { detail += " [JetStream error \(errorCode.rawValue)]" }
        return detail
    }
}

/// One connection to a NATS server or cluster (libnats): reconnects for
/// ever, replaying what it buffered meanwhile, and tells `onStatus` when it
/// is lost and found again. Credentials are handed to the client and never
/// printed (the address's description has none). Thread-safe (libnats
/// connections are); closed on deinit.
public final class NATSConnection: @unchecked Sendable {
    let handle: OpaquePointer
    public let address: NATSAddress
    private let callbacks: Callbacks

    /// What the connection reports (a line for stderr or a status event).
    final class Callbacks: @unchecked Sendable {
        let onStatus: @Sendable (String) -> Void
        /// Set when closing on purpose: the disconnection that follows is not news.
        let closing = Atomic<Bool>(false)
        init(onStatus: @escaping @Sendable (String) -> Void) { self.onStatus = onStatus }
    }

    /// - Parameter reconnectBufferBytes: what the client holds while reconnecting; a publisher
    ///   keeps it tiny, so a message published while the connection is down fails at once and
    ///   is sent again in order by the ``PublishWindow`` instead of jumping ahead of the lost ones.
    public init(address: NATSAddress, name: String, reconnectBufferBytes: Int = 16 << 20, onStatus: @escaping @Sendable (String) -> Void = { _ in }) throws(JetStreamError) {
        self.address = address
        callbacks = Callbacks(onStatus: onStatus)
        var options: OpaquePointer?
        guard natsOptions_Create(&options) == NATS_OK, let options else {
            throw .connect(address: address.description, reason: "cannot create the client's options")
        }
        defer { natsOptions_Destroy(options) }
        var urls = address.servers.map { strdup($0) }
        defer { urls.forEach { free($0) } }
        var status = urls.withUnsafeMutableBufferPointer { buffer -> natsStatus in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { natsOptions_SetServers(options, $0.baseAddress, Int32($0.count)) }
        }
        switch address.credentials {
        case .none: break
        case .token(let token): if status == NATS_OK { status = natsOptions_SetToken(options, token) }
        case .user(let user, let password): if status == NATS_OK { status = natsOptions_SetUserInfo(options, user, password) }
        }
        if status == NATS_OK { status = natsOptions_SetName(options, name) }
        if status == NATS_OK { status = natsOptions_SetNoRandomize(options, true) }
        if status == NATS_OK { status = natsOptions_SetTimeout(options, 2000) }
        if status == NATS_OK { status = natsOptions_SetMaxReconnect(options, -1) }
        if status == NATS_OK { status = natsOptions_SetReconnectWait(options, 250) }
        // A broker that dies on this machine or closes the socket is noticed at once; pings
        // only find a silent network. Every 2 s (tried first) called a busy machine's healthy
        // connection stale and reconnected it in the middle of a consumer's fetches.
        if status == NATS_OK { status = natsOptions_SetPingInterval(options, 20_000) }
        if status == NATS_OK { status = natsOptions_SetMaxPingsOut(options, 3) }
        if status == NATS_OK { status = natsOptions_SetReconnectBufSize(options, Int32(reconnectBufferBytes)) }
        // The client calls these on its own threads, possibly after this object is gone: they
        // hold the callbacks (retained here) until the connection's closed callback, its last.
        let closure = Unmanaged.passRetained(callbacks).toOpaque()
        if status == NATS_OK {
            status = natsOptions_SetDisconnectedCB(options, { _, closure in
                guard let closure else { return }
                let callbacks = Unmanaged<Callbacks>.fromOpaque(closure).takeUnretainedValue()
                if !callbacks.closing.load(ordering: .relaxed) { callbacks.onStatus("disconnected; reconnecting") }
            }, closure)
        }
        if status == NATS_OK {
            status = natsOptions_SetReconnectedCB(options, { connection, closure in
                guard let closure else { return }
                var buffer = [CChar](repeating: 0, count: 256)
                _ = natsConnection_GetConnectedUrl(connection, &buffer, buffer.count)
                let url = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                Unmanaged<Callbacks>.fromOpaque(closure).takeUnretainedValue().onStatus("reconnected to \(NATSConnection.withoutCredentials(url))")
            }, closure)
        }
        if status == NATS_OK {
            status = natsOptions_SetClosedCB(options, { _, closure in
                guard let closure else { return }
                Unmanaged<Callbacks>.fromOpaque(closure).release()
            }, closure)
        }
        guard status == NATS_OK else {
            Unmanaged<Callbacks>.fromOpaque(closure).release()
            throw .connect(address: address.description, reason: JetStreamError.text(status))
        }
        var connection: OpaquePointer?
        status = natsConnection_Connect(&connection, options)
        guard status == NATS_OK, let connection else {
            Unmanaged<Callbacks>.fromOpaque(closure).release()
            throw .connect(address: address.description, reason: JetStreamError.text(status))
        }
        handle = connection
    }

    deinit {
        natsConnection_Destroy(handle)
    }

    /// The largest message (headers and data) the server takes: its `max_payload`.
    public var maximumPayload: Int { Int(natsConnection_GetMaxPayload(handle)) }

    /// Closes the connection (pending writes are flushed first). Idempotent.
    public func close() {
        callbacks.closing.store(true, ordering: .relaxed)
        _ = natsConnection_FlushTimeout(handle, 2000)
        natsConnection_Close(handle)
    }

    /// Publishes `bytes` on `subject` (core NATS, no acknowledgement) and flushes.
    public func publish(_ bytes: [UInt8], to subject: String) {
        _ = bytes.withUnsafeBytes { natsConnection_Publish(handle, subject, $0.baseAddress, Int32($0.count)) }
        _ = natsConnection_FlushTimeout(handle, 2000)
    }

    /// A JetStream context; `configure` sets its options (publish callbacks).
    func jetStream(_ configure: (inout jsOptions) -> Void = { _ in }) throws(JetStreamError) -> OpaquePointer {
        var options = jsOptions()
        jsOptions_Init(&options)
        configure(&options)
        var context: OpaquePointer?
        let status = natsConnection_JetStream(&context, handle, &options)
        guard status == NATS_OK, let context else { throw .connect(address: address.description, reason: JetStreamError.text(status)) }
        return context
    }

    static func withoutCredentials(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + url[url.index(after: at)...]
    }
}
