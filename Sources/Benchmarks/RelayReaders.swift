import Foundation

/// The WebSocket clients of the relay benchmark: `count` sockets upgraded to
/// one URL path, read by one thread with `poll`, counting the server's
/// frames and, optionally, each message's latency (the receive time minus
/// the observation's `lastupdate`, epoch milliseconds, which the fleet
/// sets to the moment it is due and the simulator sends it).
///
/// Why not the project's WebSocket client: its libwebsockets client parses
/// every received byte through its frame state machine (about 1 µs per
/// message on this machine), so a million messages a second would take a
/// whole core of the two the relay runs on, and the benchmark would measure
/// its clients. These readers only walk frame headers (server frames are
/// unmasked: RFC 6455 §5.2), as cheap a consumer as a client can be.
final class RelayReaders: @unchecked Sendable {
    private struct Connection {
        var descriptor: Int32
        var buffer: [UInt8] = []
        var start = 0
    }

    private let lock = NSLock()
    private var connections: [Connection] = []
    private var messages = 0
    private var bytes = 0
    private var closedCount = 0
    private var latencies: [Int32] = []
    private var recording = false
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    /// Connects and upgrades `count` clients to `127.0.0.1:port` `path`, then reads on a thread of its own.
    init(port: Int, path: String, count: Int, latency: Bool) throws {
        for _ in 0..<count { connections.append(Connection(descriptor: try Self.open(port: port, path: path))) }
        recording = latency
        let measureLatency = latency
        Thread { self.readLoop(measureLatency: measureLatency) }.start()
    }

    /// Messages and bytes received so far, over every client.
    var counts: (messages: Int, bytes: Int, closed: Int) { lock.withLock { (messages, bytes, closedCount) } }

    /// The latencies recorded since the previous call (microseconds), and starts afresh.
    func takeLatencies() -> [Int32] {
        lock.withLock {
            defer { latencies = []; latencies.reserveCapacity(1 << 20) }
            return latencies
        }
    }

    func stop() {
        lock.withLock { running = false }
        done.wait()
        for connection in connections { close(connection.descriptor) }
    }

    private func readLoop(measureLatency: Bool) {
        var scratch = [UInt8](repeating: 0, count: 1 << 18)
        var pending: [Int32] = []
        while lock.withLock({ running }) {
            var fds = connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), 100)
            if ready <= 0 { continue }
            var received = 0, receivedBytes = 0, closed = 0
            for index in fds.indices where fds[index].revents != 0 {
                let count = scratch.withUnsafeMutableBytes { recv(fds[index].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count <= 0 {
                    if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        closed += 1
                        connections[index].descriptor = -1
                    }
                    continue
                }
                receivedBytes += count
                let now = measureLatency ? Self.nowMicroseconds() : 0
                connections[index].buffer.append(contentsOf: scratch[0..<count])
                received += Self.takeFrames(&connections[index], now: now, recording: measureLatency, latencies: &pending)
            }
            connections.removeAll { $0.descriptor < 0 }
            lock.withLock {
                messages += received
                bytes += receivedBytes
                closedCount += closed
                if recording { latencies += pending }
            }
            pending.removeAll(keepingCapacity: true)
        }
        done.signal()
    }

    /// Counts the whole frames in the connection's buffer (recording each message's latency), keeps the rest.
    private static func takeFrames(_ connection: inout Connection, now: Int64, recording: Bool, latencies: inout [Int32]) -> Int {
        var found = 0
        let consumed: Int = connection.buffer.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: UInt8.self)
            var offset = connection.start
            while raw.count - offset >= 2 {
                var length = Int(base[offset + 1] & 0x7F)
                var header = 2
                if length == 126 {
                    guard raw.count - offset >= 4 else { break }
                    length = Int(base[offset + 2]) << 8 | Int(base[offset + 3])
                    header = 4
                } else if length == 127 {
                    guard raw.count - offset >= 10 else { break }
                    length = (2..<10).reduce(0) { $0 << 8 | Int(base[offset + $1]) }
                    header = 10
                }
                guard raw.count - offset >= header + length else { break }
                if base[offset] & 0x0F == 0x1 {
                    found += 1
                    if recording, let sent = lastUpdate(base, from: offset + header, to: offset + header + length) {
                        latencies.append(Int32(clamping: now - sent * 1000))
                    }
                }
                offset += header + length
            }
            return offset
        }
        if consumed >= connection.buffer.count {
            connection.buffer.removeAll(keepingCapacity: true)
            connection.start = 0
        } else if consumed > 1 << 16 {
            connection.buffer.removeFirst(consumed)
            connection.start = 0
        } else {
            connection.start = consumed
        }
        return found
    }

    private static let key = Array("\"lastupdate\":".utf8)

    /// The integer after the last `"lastupdate":` of the message (it is the fleet's last attribute).
    private static func lastUpdate(_ base: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int64? {
        var position = to - key.count
        while position >= from {
            if base[position] == UInt8(ascii: "\""), base[position + 1] == UInt8(ascii: "l") {
                var match = true
                for (index, byte) in key.enumerated() where base[position + index] != byte { match = false; break }
                if match {
                    var value: Int64 = 0
                    var cursor = position + key.count
                    while cursor < to, base[cursor] >= 48, base[cursor] <= 57 {
                        value = value * 10 + Int64(base[cursor] - 48)
                        cursor += 1
                    }
                    return value
                }
            }
            position -= 1
        }
        return nil
    }

    static func nowMicroseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }

    private static func open(port: Int, path: String) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw BenchmarkError("cannot connect to port \(port)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 8192, recv(descriptor, &byte, 1, 0) == 1 {
            head.append(byte)
            if head.count >= 4, head.suffix(4) == [13, 10, 13, 10] { break }
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw BenchmarkError("upgrade refused: \(String(decoding: head.prefix(80), as: UTF8.self))")
        }
        return descriptor
    }
}
