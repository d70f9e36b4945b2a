#if canImport(Glibc)
import Glibc
#endif
import Foundation
import EntityStreamLocking

/// A loopback TCP relay in front of a server, for tests of peers that stop
/// listening: it passes bytes both ways until ``mute()``, after which what
/// the client sends is read and dropped, never reaching the server (a server
/// that ignores a close frame, say), while the server's bytes still reach the
/// client. One thread per connection, blocking calls off Swift's pool;
/// ``stop()`` (or releasing it) closes everything.
public final class MutingRelay: Sendable {
    public let port: Int
    private let listener: Int32
    private let state = LockedState<(muted: Bool, stopped: Bool, descriptors: [Int32])>((false, false, []))

    /// Listens on a free loopback port, relaying to `targetPort` on 127.0.0.1.
    public init(targetPort: Int) throws {
        let (descriptor, port) = try LoopbackSocket.bind(reusingAddress: true)
        guard listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EIO)
        }
        listener = descriptor
        self.port = port
        let thread = Thread { [self] in acceptLoop(targetPort: targetPort) }
        thread.start()
    }

    deinit { stop() }

    /// From now on the client's bytes are dropped.
    public func mute() { state.withLock { $0.muted = true } }

    /// Closes the listener and every relayed connection. Descriptors are shut
    /// down under the lock their pumps close them under, so a number already
    /// closed (and maybe reused by another test's socket) is never touched.
    public func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in state.descriptors { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop(targetPort: Int) {
        // Closed under the lock, marked stopped: stop() never touches a number closed here.
        defer {
            state.withLock { state in
                state.stopped = true
                close(listener)
            }
        }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = LoopbackSocket.connect(server, port: targetPort)
            let kept = state.withLock { state -> Bool in
                guard !state.stopped, connected else { return false }
                state.descriptors += [client, server]
                return true
            }
            guard kept else {
                close(client)
                close(server)
                continue
            }
            Thread { [self] in pump(client: client, server: server) }.start()
        }
    }

    /// Copies bytes both ways until either side closes.
    private func pump(client: Int32, server: Int32) {
        defer {
            state.withLock { state in
                state.descriptors.removeAll { $0 == client || $0 == server }
                close(client)
                close(server)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return }
            for (index, from) in [client, server].enumerated() where fds[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                let to = from == client ? server : client
                if from == client && state.withLock({ $0.muted }) { continue }
                var offset = 0
                while offset < count {
                    let written = buffer.withUnsafeBytes { write(to, $0.baseAddress! + offset, count - offset) }
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}
