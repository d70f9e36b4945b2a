import CLibWebSockets
import Foundation
import EntityStreamLocking

/// What a ``ServiceLoop`` asks of the code that owns its connections. Every
/// method runs on the loop's service thread.
protocol ServiceLoopDelegate: AnyObject {
    /// Why libwebsockets calls (its name, for delegates in modules that do not import it).
    typealias CallbackReason = lws_callback_reasons
    /// One libwebsockets callback. Return 0 to continue, non-zero to close `wsi`.
    func callback(wsi: OpaquePointer, reason: CallbackReason, user: UnsafeMutableRawPointer?,
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
/// (a libwebsockets timer wakes the thread; no task is involved). When that
/// timer is due is a ``ServiceLoopTimer``.
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
    private let timerSlot: UnsafeMutablePointer<TimerSlot>
    private let timer: UnsafeMutablePointer<lws_sorted_usec_list_t>
    private var timing: ServiceLoopTimer<ContinuousClock.Instant>
    /// How long before each instant the timer is armed: zero, except in tests
    /// that make libwebsockets' timer fire before the loop's clock reaches the
    /// instant every time (as millisecond polls do now and then).
    private let timerLead: Duration
    private let finished = LockedState<[CheckedContinuation<Void, Never>]?>([])

    private init(name: String, delegate: any ServiceLoopDelegate, shutdownGrace: Duration, tickInterval: Duration?,
                 timerLead: Duration) {
        self.name = name
        self.delegate = delegate
        self.lifecycle = LockedState(Lifecycle(shutdownGrace: shutdownGrace))
        self.timing = ServiceLoopTimer(tickInterval: tickInterval)
        self.timerLead = timerLead
        timerSlot = .allocate(capacity: 1)
        timerSlot.initialize(to: TimerSlot())
        timer = TimerSlot.timer(in: timerSlot)
    }

    deinit {
        timerSlot.deallocate()
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
        timerLead: Duration = .zero,
        configure: @escaping @Sendable (inout lws_context_creation_info, (String) -> UnsafePointer<CChar>) -> Void
    ) async throws(TransportError) -> ServiceLoop {
        LibWebSocketsLogging.configureOnce()
        let loop = ServiceLoop(name: name, delegate: delegate, shutdownGrace: shutdownGrace, tickInterval: tickInterval,
                               timerLead: timerLead)
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
        timerSlot.pointee.context = context
        ready.resume(returning: .success(()))
        let started = ContinuousClock.now
        arm(context: context, at: timing.started(now: started), now: started)

        service: while true {
            if lws_service(context, 0) < 0 { break service }
            if timerSlot.pointee.fired {
                timerSlot.pointee.fired = false
                timing.fired()
            }
            let commands = lifecycle.withLock { $0.takeCommands() }
            for command in commands { command() }
            delegate.serviceTurnEnded()
            let now = ContinuousClock.now
            let turn = timing.turnEnded(now: now)
            if turn.tick { delegate.tick(now: now) }
            arm(context: context, at: turn.arm, now: now)
            let live = delegate.hasLiveConnections
            switch lifecycle.withLock({ $0.turnEnded(now: now, hasLiveConnections: live) }) {
            case .continue:
                continue service
            case .beginShutdown(let deadline):
                delegate.beginShutdown()
                if !delegate.hasLiveConnections { break service }
                arm(context: context, at: timing.shutdownBegan(deadline: deadline), now: now)
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

    /// Arms the loop's one libwebsockets timer to wake `lws_service` at
    /// `instant` (nil: leave it as it is), rounded up to the microsecond.
    private func arm(context: OpaquePointer, at instant: ContinuousClock.Instant?, now: ContinuousClock.Instant) {
        guard let instant else { return }
        let delay = (instant - timerLead) - now
        let (seconds, attoseconds) = delay.components
        let microseconds = max(Int64(1), seconds * 1_000_000 + (attoseconds + 999_999_999_999) / 1_000_000_000_000)
        lws_sul_schedule(context, 0, timer, serviceLoopTimerFired, microseconds)
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

/// The loop's libwebsockets timer and what its callback reaches through it.
private struct TimerSlot {
    var sul = lws_sorted_usec_list_t()
    /// The context to wake (set on the service thread once it exists).
    var context: OpaquePointer?
    /// Set by the callback, cleared by the loop after the turn.
    var fired = false

    static let sulOffset = MemoryLayout<TimerSlot>.offset(of: \.sul)!

    static func timer(in slot: UnsafeMutablePointer<TimerSlot>) -> UnsafeMutablePointer<lws_sorted_usec_list_t> {
        (UnsafeMutableRawPointer(slot) + sulOffset).assumingMemoryBound(to: lws_sorted_usec_list_t.self)
    }
}

/// The loop's timer fired (service thread, inside `lws_service`). libwebsockets
/// runs an expired timer before it polls and then polls until its next timer,
/// up to 30 s away, so the callback wakes that poll (`lws_cancel_service`) for
/// the loop to see what is due, and says it fired so that the loop arms it
/// again if our clock finds nothing due yet (see ``ServiceLoopTimer``).
private func serviceLoopTimerFired(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul else { return }
    let slot = (UnsafeMutableRawPointer(sul) - TimerSlot.sulOffset).assumingMemoryBound(to: TimerSlot.self)
    slot.pointee.fired = true
    if let context = slot.pointee.context { lws_cancel_service(context) }
}

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
