import Foundation

/// A WebSocket client written for tests that must control the socket below
/// the protocol: its receive buffer (a client that falls behind, or never
/// reads), when it reads at all, and the close frame it is sent. It speaks
/// RFC 6455 as a client does (a masked text frame for ``send(_:)``) and reads
/// the server's unmasked frames: text messages, and the close frame's code.
///
/// Every blocking call runs on a thread of its own, never on a Swift
/// concurrency thread, and gives up after its timeout; nothing throws after
/// the upgrade (a reset ends the reading). Not for concurrent use.
public final class RawWebSocketClient: @unchecked Sendable {
    /// What one ``read(messages:timeoutMilliseconds:)`` got.
    public struct Reading: Sendable {
        /// Text messages, in order.
        public var messages: [[UInt8]] = []
        /// The close frame's code and reason, when the server closed.
        public var close: (code: UInt16, reason: String)?
        /// The connection ended (closed, reset) during this read.
        public var ended = false
    }

    /// Why the upgrade failed.
    public struct UpgradeFailure: Error, CustomStringConvertible {
        public let description: String
    }

    private let descriptor: Int32
    private var pending: [UInt8]
    private var fragments: [UInt8] = []
    private var closed = false

    private init(descriptor: Int32, pending: [UInt8]) {
        self.descriptor = descriptor
        self.pending = pending
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Connects to `127.0.0.1:port`, upgrades `path` (with its query), and
    /// returns once the server answered 101. `receiveBufferBytes` sets
    /// `SO_RCVBUF` before connecting (a small one makes a slow reader fall
    /// behind quickly). Throws ``UpgradeFailure`` with the server's answer.
    public static func connect(port: Int, path: String, receiveBufferBytes: Int? = nil,
                               timeoutMilliseconds: Int = 15_000) async throws -> RawWebSocketClient {
        let result: Result<RawWebSocketClient, UpgradeFailure> = await onThread {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return .failure(UpgradeFailure(description: "socket() failed")) }
            if var size = receiveBufferBytes.map(Int32.init) {
                _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            setTimeout(descriptor, timeoutMilliseconds)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(descriptor)
                return .failure(UpgradeFailure(description: "connection to port \(port) refused"))
            }
            let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            guard writeAll(descriptor, Array(request.utf8)) else {
                Glibc.close(descriptor)
                return .failure(UpgradeFailure(description: "could not send the upgrade"))
            }
            var head: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, 1, 0) }
                guard count == 1 else {
                    Glibc.close(descriptor)
                    return .failure(UpgradeFailure(description: "the server answered: \(String(decoding: head, as: UTF8.self))"))
                }
                head.append(buffer[0])
                if head.count >= 4, head.suffix(4) == [13, 10, 13, 10] { break }
                if head.count > 16_384 { break }
            }
            let text = String(decoding: head, as: UTF8.self)
            guard text.hasPrefix("HTTP/1.1 101") else {
                Glibc.close(descriptor)
                return .failure(UpgradeFailure(description: text.split(separator: "\r\n").first.map(String.init) ?? text))
            }
            return .success(RawWebSocketClient(descriptor: descriptor, pending: []))
        }
        return try result.get()
    }

    /// Reads until `count` text messages arrived, the server closed, or
    /// nothing came for `timeoutMilliseconds`.
    public func read(messages count: Int, timeoutMilliseconds: Int = 15_000) async -> Reading {
        await Self.onThread { self.readBlocking(count, timeoutMilliseconds) }
    }

    /// Sends `text` as one masked text frame. False when it could not be written.
    @discardableResult
    public func send(_ text: String) async -> Bool {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF)) }
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += mask
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        let (descriptor, bytes) = (self.descriptor, frame)
        return await Self.onThread { Self.writeAll(descriptor, bytes) }
    }

    private func readBlocking(_ count: Int, _ timeoutMilliseconds: Int) -> Reading {
        var reading = Reading()
        Self.setTimeout(descriptor, timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while reading.messages.count < count, !closed {
            if takeFrames(into: &reading, until: count) { break }
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard received > 0 else {
                if received < 0 && errno == EINTR { continue }
                if received == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { reading.ended = true; closed = true }
                break
            }
            pending.append(contentsOf: buffer[0..<received])
        }
        return reading
    }

    /// Moves whole frames from `pending` into `reading`; true once the count is reached or the server closed.
    private func takeFrames(into reading: inout Reading, until count: Int) -> Bool {
        var offset = 0
        defer { if offset > 0 { pending.removeFirst(offset) } }
        while reading.messages.count < count {
            guard pending.count - offset >= 2 else { return false }
            let first = pending[offset], second = pending[offset + 1]
            var length = Int(second & 0x7F)
            var header = 2
            if length == 126 {
                guard pending.count - offset >= 4 else { return false }
                length = Int(pending[offset + 2]) << 8 | Int(pending[offset + 3])
                header = 4
            } else if length == 127 {
                guard pending.count - offset >= 10 else { return false }
                length = (2..<10).reduce(0) { $0 << 8 | Int(pending[offset + $1]) }
                header = 10
            }
            if second & 0x80 != 0 { header += 4 }
            guard pending.count - offset >= header + length else { return false }
            let payload = Array(pending[(offset + header)..<(offset + header + length)])
            offset += header + length
            switch first & 0x0F {
            case 0x1, 0x0:
                fragments += payload
                if first & 0x80 != 0 {
                    reading.messages.append(fragments)
                    fragments = []
                }
            case 0x8:
                let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005
                reading.close = (code, String(decoding: payload.dropFirst(2), as: UTF8.self))
                reading.ended = true
                closed = true
                return true
            default:
                continue
            }
        }
        return true
    }

    private static func setTimeout(_ descriptor: Int32, _ milliseconds: Int) {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: Int((milliseconds % 1000) * 1000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
