import CLibWebSockets
import Synchronization

/// One HTTP request/response exchange on the client loop. Service thread only.
final class ClientHTTPSession: ClientSession, @unchecked Sendable {
    let id: Int
    private let request: HTTPRequest
    private let url: TransportURL
    private let address: String
    private let configuration: HTTPClientConfiguration
    private unowned let dispatcher: ClientDispatcher
    private var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?
    private var wsi: OpaquePointer?
    private var status = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    private var bodySent = false
    private var finished = false
    private var earlyEnd: Result<HTTPResponse, TransportError>?
    private var readBuffer = [UInt8](repeating: 0, count: Int(es_lws_pre()) + 64 * 1024)
    private var handshake = TLSHandshakeRecord()
    /// Set on the service thread before the caller is answered.
    private let contextRace = Atomic<Bool>(false)
    var lostToContextCreation: Bool { contextRace.load(ordering: .acquiring) }

    init(id: Int, request: HTTPRequest, url: TransportURL, address: String,
         configuration: HTTPClientConfiguration, dispatcher: ClientDispatcher) {
        self.id = id
        self.request = request
        self.url = url
        self.address = address
        self.configuration = configuration
        self.dispatcher = dispatcher
    }

    func start(context: OpaquePointer, continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) {
        if let earlyEnd {
            // Cancelled or timed out before the request could start.
            continuation.resume(returning: earlyEnd)
            return
        }
        self.continuation = continuation
        dispatcher.register(self)
        connect(context: context)
    }

    func connect(context: OpaquePointer) {
        handshake.connecting(epoch: TLSContextEpoch.current)
        let request = ClientConnectRequest(url: url, address: address, sessionID: id, method: self.request.method.rawValue,
                                           allowSelfSignedCertificates: configuration.allowSelfSignedCertificates,
                                           extraFlags: LCCSCF_HTTP_NO_FOLLOW_REDIRECT.rawValue)
        if !request.open(context: context) {
            finish(.failure(.connectionFailed(detail: "libwebsockets refused to start the request to \(url)")))
            dispatcher.unregister(self)
        }
    }

    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        self.wsi = wsi
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(wsi: wsi, input: input, length: length)

        case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE:
            guard request.method == .post, !bodySent else { return 0 }
            bodySent = true
            var buffer = [UInt8](repeating: 0, count: Int(es_lws_pre()))
            buffer.append(contentsOf: request.body)
            let pre = Int(es_lws_pre())
            lws_client_http_body_pending(wsi, 0)
            let written = buffer.withUnsafeMutableBufferPointer { pointer in
                lws_write(wsi, pointer.baseAddress! + pre, request.body.count, LWS_WRITE_HTTP_FINAL)
            }
            return written < request.body.count ? -1 : 0

        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            status = Int(lws_http_client_http_response(wsi))
            headers = HeaderTable.headers(of: wsi)
            return 0

        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
            let pre = Int(es_lws_pre())
            let result = readBuffer.withUnsafeMutableBufferPointer { pointer -> Int32 in
                var cursor: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(pointer.baseAddress! + pre)
                    .assumingMemoryBound(to: CChar.self)
                var available = Int32(pointer.count - pre)
                return lws_http_client_read(wsi, &cursor, &available)
            }
            return result < 0 ? -1 : 0

        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
            guard !finished else { return -1 }
            guard body.count + length <= configuration.maximumBodySize else {
                finish(.failure(.bodyTooLarge(limit: configuration.maximumBodySize)))
                return -1
            }
            if let input { body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length)) }
            return 0

        case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
            finish(.success(HTTPResponse(status: status, headers: headers, body: body, url: url.description)))
            return -1

        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            if handshake.failureMayBeContextRace(usesTLS: url.usesTLS, epochNow: TLSContextEpoch.current) {
                contextRace.store(true, ordering: .releasing)
            }
            finish(.failure(ConnectErrorClassifier.classify(text, url: url, handshakeStatus: 0, certificateProblem: handshake.certificateProblem)))
            return 0

        case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
            if !finished {
                if status != 0 {
                    // Server closed the connection to end a body without a length.
                    finish(.success(HTTPResponse(status: status, headers: headers, body: body, url: url.description)))
                } else {
                    finish(.failure(.connectionLost(detail: "the server closed before answering")))
                }
            }
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            self.wsi = nil
            if !finished { finish(.failure(.connectionLost(detail: "the connection was destroyed"))) }
            dispatcher.unregister(self)
            return 0

        default:
            return 0
        }
    }

    private func appendHeaders(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let input else { return 0 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return 0 }
        let end = start + length
        var fields = request.headers.fields
        if request.method == .post {
            if request.headers["content-type"] == nil {
                fields.append(.init(name: "Content-Type", value: "application/x-www-form-urlencoded"))
            }
            fields.append(.init(name: "Content-Length", value: String(request.body.count)))
        }
        for field in fields {
            let name = field.name.lowercased() + ":"
            let value = Array(field.value.utf8)
            let status = name.withCString { namePointer in
                value.withUnsafeBufferPointer { valueBuffer in
                    lws_add_http_header_by_name(wsi, UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                                                valueBuffer.baseAddress, Int32(valueBuffer.count), cursor, end)
                }
            }
            if status != 0 { return -1 }
        }
        if request.method == .post {
            lws_client_http_body_pending(wsi, 1)
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// Service thread: end the exchange early (timeout) and drop the socket.
    func fail(_ error: TransportError) {
        guard !finished else { return }
        finish(.failure(error))
        if let wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC) }
    }

    func turnEnded() {}

    func certificateVerified(_ problem: TLSCertificateProblem?) {
        handshake.certificateVerified(problem)
    }

    func beginShutdown() {
        fail(.shutDown)
    }

    func contextDestroyed() {
        if !finished { finish(.failure(.shutDown)) }
        dispatcher.unregister(self)
    }

    private func finish(_ result: Result<HTTPResponse, TransportError>) {
        guard !finished else { return }
        finished = true
        if let continuation {
            continuation.resume(returning: result)
            self.continuation = nil
        } else {
            earlyEnd = result
        }
    }
}
