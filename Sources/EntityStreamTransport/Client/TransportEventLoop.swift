import CLibWebSockets
import EntityStreamLocking
import Synchronization

/// The libwebsockets client context, and its service thread, that WebSocket
/// and HTTP client connections run on.
///
/// Many connections share one loop; ``shared`` is started on first use and
/// lives for the process. Create your own to control its lifetime:
/// ``shutdown()`` closes its connections politely (close code 1001), stops
/// the thread and destroys the context on it; connections still open then
/// end with ``TransportError/shutDown``. Thread-safe.
public final class TransportEventLoop: Sendable {
    /// The process-wide client loop.
    public static let shared = TransportEventLoop(name: "entitystream-client")

    private typealias Pair = (ServiceLoop, ClientDispatcher)
    private typealias Lifecycle = EventLoopLifecycle<Pair, CheckedContinuation<Result<Pair, TransportError>, Never>,
                                                     CheckedContinuation<ShutdownOutcome, Never>>
    private enum ShutdownOutcome { case done, stop(Pair) }

    private let name: String
    private let permessageDeflate: Bool
    private let state = LockedState(Lifecycle())
    private let nextSessionID = Atomic<Int>(1)

    /// - Parameter permessageDeflate: offer the `permessage-deflate` extension
    ///   to servers (used only when the server accepts it).
    public init(name: String = "entitystream-client", permessageDeflate: Bool = true) {
        self.name = name
        self.permessageDeflate = permessageDeflate
    }

    func makeSessionID() -> Int { nextSessionID.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// The running loop, starting it on first use (in the calling task:
    /// whoever comes first starts it, the others wait for that start).
    func running() async throws(TransportError) -> (ServiceLoop, ClientDispatcher) {
        switch state.withLock({ $0.claim() }) {
        case .ready(let pair): return pair
        case .refused: throw .shutDown
        case .start: return try await start()
        case .wait: break
        }
        let result: Result<Pair, TransportError> = await withCheckedContinuation { continuation in
            switch state.withLock({ $0.wait(continuation) }) {
            case .stored: break
            case .ready(let pair): continuation.resume(returning: .success(pair))
            case .refused: continuation.resume(returning: .failure(.shutDown))
            }
        }
        return try result.get()
    }

    private func start() async throws(TransportError) -> Pair {
        let dispatcher = ClientDispatcher()
        var failure = TransportError.shutDown
        var started: Pair?
        do {
            let loop = try await ServiceLoop.start(
                name: name, delegate: dispatcher, rxBufferSize: 256 * 1024, txPacketSize: 0,
                perSessionDataSize: 0, permessageDeflate: permessageDeflate, tickInterval: .seconds(1),
                configure: Self.clientContext
            )
            started = (loop, dispatcher)
        } catch {
            failure = error
        }
        switch state.withLock({ $0.started(started) }) {
        case .running(let pair, let waiters):
            for waiter in waiters { waiter.resume(returning: .success(pair)) }
            return pair
        case .failed(let waiters):
            for waiter in waiters { waiter.resume(returning: .failure(failure)) }
            throw failure
        case .shutDownAfterStart(let pair, let waiters, let shutdownWaiters):
            for waiter in waiters { waiter.resume(returning: .failure(.shutDown)) }
            await pair?.0.shutdown()
            for waiter in shutdownWaiters { waiter.resume(returning: .done) }
            throw .shutDown
        }
    }

    /// The creation info of a client context: no listening port, TLS set up.
    static let clientContext: @Sendable (inout lws_context_creation_info, (String) -> UnsafePointer<CChar>) -> Void = { info, _ in
        info.port = es_context_port_no_listen()
        info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
        info.fd_limit_per_thread = 1024
        info.timeout_secs = 30
    }

    /// Politely closes every connection and stops the loop; returns once its
    /// thread has finished (also when called while the loop is starting).
    /// Idempotent; afterwards every use fails with ``TransportError/shutDown``.
    public func shutdown() async {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<ShutdownOutcome, Never>) in
            switch state.withLock({ $0.shutdown(continuation) }) {
            case .stored: break
            case .done: continuation.resume(returning: .done)
            case .stop(let pair): continuation.resume(returning: .stop(pair))
            }
        }
        if case .stop(let pair) = outcome { await pair.0.shutdown() }
    }
}
