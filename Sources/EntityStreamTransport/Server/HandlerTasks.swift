import EntityStreamLocking

/// The tasks a server runs its handlers in (HTTP responders, WebSocket
/// handlers): child tasks of one task group, owned by the server, so that
/// ``TransportServer/shutdown()`` cancels them all and waits: when shutdown
/// returns, no handler of that server is still running. Handlers arrive
/// from the service thread through a stream the group's task reads.
/// Thread-safe.
final class HandlerTasks: Sendable {
    private typealias Handler = @Sendable () async -> Void

    private let handlers: AsyncStream<Handler>
    private let submit: AsyncStream<Handler>.Continuation
    private let group: Task<Void, Never>
    private let running = LockedState(0)

    init() {
        let (handlers, submit) = AsyncStream.makeStream(of: Handler.self)
        self.handlers = handlers
        self.submit = submit
        group = Task {
            await withDiscardingTaskGroup { group in
                for await handler in handlers {
                    group.addTask(operation: handler)
                }
            }
        }
    }

    /// Runs `body` as a new child task of the group.
    func start(_ body: @escaping @Sendable () async -> Void) {
        running.withLock { $0 += 1 }
        let running = self.running
        let result = submit.yield {
            await body()
            running.withLock { $0 -= 1 }
        }
        if case .terminated = result { running.withLock { $0 -= 1 } }
    }

    /// Cancels every handler still running and waits for each to return.
    /// Call after the service loop has stopped, when sockets are closed and
    /// no new handler can start.
    func cancelAndWait() async {
        submit.finish()
        group.cancel()
        await group.value
    }

    var count: Int { running.withLock { $0 } }
}
