import CLibWebSockets
import Foundation
import EntityStreamLocking

/// What a ``ServiceLoop`` asks of the code that owns its connections. Every
/// method runs on the loop's service thread.
protocol ServiceLoopDelegate: AnyObject {
    /// One libwebsockets callback. Return 0 to continue, non-zero to close `wsi`.
    func callback(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                  input: UnsafeMutableRawPointer?, length: Int) -> Int32
    /// Called after each `lws_service` turn: hand off what the turn received.
    func serviceTurnEnded()
    /// Called once when shutdown starts: close every connection politely.
    func beginShutdown()
    /// True while connections are still closing.
    var hasLiveConnections: Bool { get }
    /// Called right before `lws_context_destroy`: fail whatever is still open.
    func contextWillBeDestroyed()
    /// Called every `tickInterval` when the loop has one (keepalive decisions).
    func tick(now: ContinuousClock.Instant)
}

extension ServiceLoopDelegate {
    func tick(now: ContinuousClock.Instant) {}
}

/// One libwebsockets context and the one thread that services it.
///
/// Threading contract: the context is created, serviced and destroyed on the
/// loop's own thread. Other threads only append closures with ``execute(_:)``
/// (a locked queue) and wake the thread with `lws_cancel_service`; the
/// closures then run on the service thread between service turns. Its
/// lifecycle is a ``ServiceLoopLifecycle``: every command that ``execute(_:)``
/// accepted runs exactly once — those accepted just before the context died
/// run after it is gone (``context`` is then nil) so they can fail their
/// callers instead of leaving them waiting; after that ``execute(_:)``
/// returns false and runs nothing. With a `tickInterval`, the delegate's
/// ``ServiceLoopDelegate/tick(now:)`` runs on the service thread that often
/// (a libwebsockets timer wakes the thread; no task is involved).
final class ServiceLoop: @unchecked Sendable {
    typealias Command = @Sendable () -> Void
    typealias Lifecycle = ServiceLoopLifecycle<Command, ContinuousClock.Instant>

    let name: String
    private let lifecycle: LockedState<Lifecycle>
    /// Set on the service thread before any other thread can see the loop as started.
    private(set) nonisolated(unsafe) var context: OpaquePointer?
    // Service-thread state.
    private let delegate: any ServiceLoopDelegate
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var extensions: UnsafeMutablePointer<lws_extension>?
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private let timer: UnsafeMutablePointer<lws_sorted_usec_list_t>
    private let tickInterval: Duration?
    private var nextTick: ContinuousClock.Instant?
    private var shutdownDeadline: ContinuousClock.Instant?
    private let finished = LockedState<[CheckedContinuation<Void, Never>]?>([])

    private init(name: String, delegate: any ServiceLoopDelegate, shutdownGrace: Duration, tickInterval: Duration?) {
        self.name = name
        self.delegate = delegate
        self.lifecycle = LockedState(Lifecycle(shutdownGrace: shutdownGrace))
        self.tickInterval = tickInterval
        timer = .allocate(capacity: 1)
        timer.initialize(to: lws_sorted_usec_list_t())
    }

    deinit {
        timer.deallocate()
    }

    /// Creates the context on a new thread and returns once it is ready.
    ///
    /// `configure` fills in the creation info (ports, TLS files, options); the
    /// protocol list (one protocol, whose callback reaches `delegate`) and the
    /// user pointer are set here. Throws ``TransportError/serverStartFailed(detail:)``
    /// when libwebsockets cannot create the context (e.g. the port is taken).
    static func start(
        name: String,
        delegate: any ServiceLoopDelegate,
        rxBufferSize: Int,
        txPacketSize: Int,
        perSessionDataSize: Int,
        permessageDeflate: Bool,
        shutdownGrace: Duration = .seconds(2),
        tickInterval: Duration? = nil,
        configure: @escaping @Sendable (inout lws_context_creation_info, (String) -> UnsafePointer<CChar>) -> Void
    ) async throws(TransportError) -> ServiceLoop {
        LibWebSocketsLogging.configureOnce()
        let loop = ServiceLoop(name: name, delegate: delegate, shutdownGrace: shutdownGrace, tickInterval: tickInterval)
        let started: Result<Void, TransportError> = await withCheckedContinuation { ready in
            let spawned = JoinableThread.spawn {
                ThreadName.setCurrent(name)
                loop.run(ready: ready, rxBufferSize: rxBufferSize, txPacketSize: txPacketSize,
                         perSessionDataSize: perSessionDataSize, permessageDeflate: permessageDeflate,
                         configure: configure)
                // Waiters are told the loop has finished only once this thread
                // has ended, its thread-local destructors (OpenSSL's per-thread
                // state) included: a program that calls exit() right after
                // shutdown() otherwise ran exit's handlers while this thread
                // still freed memory. See JoinableThread.
                JoinableThread.afterCurrentEnds { loop.finishWaiters() }
            }
            if !spawned {
                loop.finishWaiters()
                ready.resume(returning: .failure(.serverStartFailed(detail: "no thread could be started for the libwebsockets service loop")))
            }
        }
        try started.get()
        return loop
    }

    /// Runs `command` on the service thread after the current turn. Returns
    /// false (and drops the command) once the loop has stopped; a command
    /// accepted here always runs, if need be after the context is gone.
    @discardableResult
    func execute(_ command: @escaping Command) -> Bool {
        lifecycle.withLock { lifecycle in
            switch lifecycle.enqueue(command) {
            case .refused: return false
            case .queued: return true
            case .wake:
                if let context { lws_cancel_service(context) }
                return true
            }
        }
    }

    /// Wakes the service thread without a command.
    func wake() {
        lifecycle.withLock { lifecycle in
            if lifecycle.acceptsWakeUps, let context { lws_cancel_service(context) }
        }
    }

    /// Closes every connection politely (waiting up to the grace period for
    /// close handshakes), stops the thread and destroys the context on it.
    /// Idempotent; returns when the thread has ended (joined), so the caller
    /// may `exit()` at once.
    func shutdown() async {
        let alreadyFinished: Bool = finished.withLock { $0 == nil }
        if alreadyFinished { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { waiters -> Bool in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if done { continuation.resume(); return }
            lifecycle.withLock { lifecycle in
                if lifecycle.requestStop(), let context { lws_cancel_service(context) }
            }
        }
    }

    // MARK: - Service thread

    private func run(
        ready: CheckedContinuation<Result<Void, TransportError>, Never>,
        rxBufferSize: Int, txPacketSize: Int, perSessionDataSize: Int, permessageDeflate: Bool,
        configure: (inout lws_context_creation_info, (String) -> UnsafePointer<CChar>) -> Void
    ) {
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(keep("entitystream"))
        protocols[0].callback = lwsServiceCallback
        protocols[0].per_session_data_size = perSessionDataSize
        protocols[0].rx_buffer_size = rxBufferSize
        protocols[0].tx_packet_size = txPacketSize
        self.protocols = protocols

        var info = lws_context_creation_info()
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.pt_serv_buf_size = UInt32(max(rxBufferSize, 4096))
        info.max_http_header_data = 16 * 1024
        if permessageDeflate {
            let extensions = UnsafeMutablePointer<lws_extension>.allocate(capacity: 2)
            extensions.initialize(repeating: lws_extension(), count: 2)
            extensions[0].name = UnsafePointer(keep("permessage-deflate"))
            extensions[0].callback = lws_extension_callback_pm_deflate
            extensions[0].client_offer = UnsafePointer(keep("permessage-deflate; client_max_window_bits"))
            self.extensions = extensions
            info.extensions = UnsafePointer(extensions)
        }
        configure(&info) { UnsafePointer(self.keep($0)) }

        // libwebsockets 4.1 re-takes OpenSSL's ex-data indexes here: see TLSContextEpoch.
        let takesTLSIndexes = info.options & UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) != 0
        if takesTLSIndexes { TLSContextEpoch.creationBegins() }
        let created = lws_create_context(&info)
        if takesTLSIndexes { TLSContextEpoch.creationEnded() }
        guard let context = created else {
            releaseCMemory()
            ready.resume(returning: .failure(.serverStartFailed(detail: "libwebsockets could not create its context (address or port unusable or in use, or unreadable TLS certificate/key)")))
            return
        }
        self.context = context
        ready.resume(returning: .success(()))
        if let tickInterval {
            nextTick = .now + tickInterval
            scheduleTimer(context: context, after: tickInterval)
        }

        service: while true {
            if lws_service(context, 0) < 0 { break service }
            let commands = lifecycle.withLock { $0.takeCommands() }
            for command in commands { command() }
            delegate.serviceTurnEnded()
            let now = ContinuousClock.now
            runTickIfDue(context: context, now: now)
            let live = delegate.hasLiveConnections
            switch lifecycle.withLock({ $0.turnEnded(now: now, hasLiveConnections: live) }) {
            case .continue:
                continue service
            case .beginShutdown(let deadline):
                shutdownDeadline = deadline
                delegate.beginShutdown()
                if !delegate.hasLiveConnections { break service }
                scheduleTimer(context: context, after: deadline - now)
            case .exit:
                break service
            }
        }
        // Stop accepting commands, fail what is still open, destroy the
        // context, then run what was accepted before the door closed.
        let leftovers = lifecycle.withLock { $0.exit() }
        lws_sul_cancel(timer)
        delegate.contextWillBeDestroyed()
        self.context = nil
        lws_context_destroy(context)
        for command in leftovers { command() }
        releaseCMemory()
    }

    /// Wakes `lws_service` after `delay` (one libwebsockets timer per loop:
    /// the earliest of the next tick and the shutdown deadline).
    private func scheduleTimer(context: OpaquePointer, after delay: Duration) {
        var wake = delay
        if let nextTick { wake = min(wake, nextTick - ContinuousClock.now) }
        let microseconds = max(Int64(1), wake.components.seconds * 1_000_000 + wake.components.attoseconds / 1_000_000_000_000)
        lws_sul_schedule(context, 0, timer, serviceLoopTimerFired, microseconds)
    }

    private func runTickIfDue(context: OpaquePointer, now: ContinuousClock.Instant) {
        guard let tickInterval, let due = nextTick, now >= due else { return }
        delegate.tick(now: now)
        var next = due + tickInterval
        if next <= now { next = now + tickInterval }
        nextTick = next
        let untilDeadline = shutdownDeadline.map { $0 - now } ?? tickInterval
        scheduleTimer(context: context, after: max(.zero, untilDeadline))
    }

    private func finishWaiters() {
        let waiters = finished.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    private func keep(_ string: String) -> UnsafeMutablePointer<CChar> {
        let copy = strdup(string)!
        cStrings.append(copy)
        return copy
    }

    private func releaseCMemory() {
        protocols?.deallocate()
        protocols = nil
        extensions?.deallocate()
        extensions = nil
        for string in cStrings { free(string) }
        cStrings = []
    }

    fileprivate func dispatch(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                              input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        delegate.callback(wsi: wsi, reason: reason, user: user, input: input, length: length)
    }
}

/// The loop's timer does nothing itself: firing makes `lws_service` return,
/// and the loop then checks what is due.
private func serviceLoopTimerFired(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {}

/// The one C callback for every protocol of every context: finds the loop
/// through the context's user pointer and hands over to its delegate.
private func lwsServiceCallback(
    wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
    input: UnsafeMutableRawPointer?, length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED { return 0 }
    // The loop outlives its context (it destroys it), so no retain is needed
    // for the call: this runs for every message received.
    return Unmanaged<ServiceLoop>.fromOpaque(raw)._withUnsafeGuaranteedRef {
        $0.dispatch(wsi: wsi, reason: reason, user: user, input: input, length: length)
    }
}
