import CLibWebSockets
import Locking
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

    private enum State {
        case idle
        case starting([CheckedContinuation<Result<(ServiceLoop, ClientDispatcher), TransportError>, Never>])
        case running(ServiceLoop, ClientDispatcher)
        case shutDown
    }

    private let name: String
    private let permessageDeflate: Bool
    private let state = LockedState(State.idle)
    private let nextSessionID = Atomic<Int>(1)

    /// - Parameter permessageDeflate: offer the `permessage-deflate` extension
    ///   to servers (used only when the server accepts it).
    public init(name: String = "entitystream-client", permessageDeflate: Bool = true) {
        self.name = name
        self.permessageDeflate = permessageDeflate
    }

    func makeSessionID() -> Int { nextSessionID.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// The running loop, starting it on first use.
    func running() async throws(TransportError) -> (ServiceLoop, ClientDispatcher) {
        enum Step { case ready(ServiceLoop, ClientDispatcher), wait, start, closed }
        let result: Result<(ServiceLoop, ClientDispatcher), TransportError> = await withCheckedContinuation { continuation in
            let step = state.withLock { state -> Step in
                switch state {
                case .running(let loop, let dispatcher): return .ready(loop, dispatcher)
                case .starting(var waiters):
                    waiters.append(continuation)
                    state = .starting(waiters)
                    return .wait
                case .idle:
                    state = .starting([continuation])
                    return .start
                case .shutDown: return .closed
                }
            }
            switch step {
            case .ready(let loop, let dispatcher): continuation.resume(returning: .success((loop, dispatcher)))
            case .closed: continuation.resume(returning: .failure(.shutDown))
            case .wait: break
            case .start:
                Task { await self.startLoop() }
            }
        }
        return try result.get()
    }

    private func startLoop() async {
        let dispatcher = ClientDispatcher()
        let outcome: Result<(ServiceLoop, ClientDispatcher), TransportError>
        do {
            let loop = try await ServiceLoop.start(
                name: name, delegate: dispatcher, rxBufferSize: 256 * 1024, txPacketSize: 0,
                perSessionDataSize: 0, permessageDeflate: permessageDeflate
            ) { info, _ in
                info.port = es_context_port_no_listen()
                info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
                info.fd_limit_per_thread = 1024
                info.timeout_secs = 30
            }
            outcome = .success((loop, dispatcher))
        } catch {
            outcome = .failure(error)
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Result<(ServiceLoop, ClientDispatcher), TransportError>, Never>] in
            guard case .starting(let waiters) = state else { return [] }
            switch outcome {
            case .success(let pair): state = .running(pair.0, pair.1)
            case .failure: state = .idle
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// Politely closes every connection and stops the loop. Idempotent.
    public func shutdown() async {
        let loop = state.withLock { state -> ServiceLoop? in
            defer { state = .shutDown }
            if case .running(let loop, _) = state { return loop }
            return nil
        }
        await loop?.shutdown()
    }
}
