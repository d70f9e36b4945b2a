import Locking

/// The tasks a server runs its handlers in (HTTP responders, WebSocket
/// handlers), so that ``TransportServer/shutdown()`` can end them and wait:
/// when shutdown returns, no handler of that server is still running.
/// Thread-safe.
final class HandlerTasks: Sendable {
    private struct Running {
        var nextID = 0
        var tasks: [Int: Task<Void, Never>] = [:]
    }

    private let running = LockedState(Running())

    /// Runs `body` in a new task that is tracked until it returns.
    func start(_ body: @escaping @Sendable () async -> Void) {
        running.withLock { running in
            let id = running.nextID
            running.nextID += 1
            // The task cannot remove itself before it is entered: removal takes this lock.
            running.tasks[id] = Task {
                await body()
                self.running.withLock { _ = $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Cancels every handler still running and waits for each to return.
    /// Call after the service loop has stopped, when sockets are closed and
    /// no new handler can start.
    func cancelAndWait() async {
        let tasks = running.withLock { Array($0.tasks.values) }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    var count: Int { running.withLock { $0.tasks.count } }
}
