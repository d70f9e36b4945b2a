import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately bare WebSocket client for conformance tests: it writes
/// frames byte by byte as the test wants them (masked or not, any close
/// code, invalid UTF-8), which no real client library would, and reads the
/// server's frames back. Blocking POSIX sockets with a receive timeout, so
/// a conversation runs on a thread of its own (``conversation(port:path:_:)``):
/// blocking a thread of Swift's cooperative pool (two here) can starve the
/// in-process server it is talking to.
struct RawWebSocket {
    struct Frame: Equatable, Sendable {
        var opcode: UInt8
        var payload: [UInt8]
        /// The close code of a close frame.
        var closeCode: UInt16? { opcode == 0x8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:`port` and upgrades `path`; throws when the server refuses.
    init(port: Int, path: String = "/echo") throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { Glibc.close(descriptor); throw Failure(description: "connect: \(errno)") }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: entitystream\r\n\r\n"
        try send(Array(request.utf8))
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            head.append(try readByte())
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw Failure(description: "upgrade refused: \(String(decoding: head, as: UTF8.self))")
        }
    }

    func close() { Glibc.close(descriptor) }

    /// Connects, runs `body` with the client on a thread of its own, closes,
    /// and returns what `body` returned (or throws what it threw).
    static func conversation<Result: Sendable>(port: Int, path: String = "/echo",
                                               _ body: @escaping @Sendable (inout RawWebSocket) throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    var client = try RawWebSocket(port: port, path: path)
                    defer { client.close() }
                    continuation.resume(returning: try body(&client))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }

    /// Sends one frame: FIN set, `opcode`, `payload`, masked with a fixed key unless `masked` is false.
    func sendFrame(opcode: UInt8, payload: [UInt8], masked: Bool = true) throws {
        var frame: [UInt8] = [0x80 | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else {
            frame.append(maskBit | 126)
            frame.append(UInt8(payload.count >> 8))
            frame.append(UInt8(payload.count & 0xFF))
        }
        if masked {
            let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            frame.append(contentsOf: key)
            frame.append(contentsOf: payload.enumerated().map { $0.element ^ key[$0.offset % 4] })
        } else {
            frame.append(contentsOf: payload)
        }
        try send(frame)
    }

    /// Reads the next frame from the server (unmasked, as servers send).
    mutating func readFrame() throws -> Frame {
        let first = try readByte()
        let second = try readByte()
        var length = Int(second & 0x7F)
        if length == 126 { length = Int(try readByte()) << 8 | Int(try readByte()) }
        else if length == 127 { length = 0; for _ in 0..<8 { length = length << 8 | Int(try readByte()) } }
        var payload: [UInt8] = []
        for _ in 0..<length { payload.append(try readByte()) }
        return Frame(opcode: first & 0x0F, payload: payload)
    }

    /// Frames until the server's close frame (or the connection's end: nil).
    mutating func readUntilClose() -> Frame? {
        while true {
            guard let frame = try? readFrame() else { return nil }
            if frame.opcode == 0x8 { return frame }
        }
    }

    private func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failure(description: "send: \(errno)") }
    }

    private mutating func readByte() throws -> UInt8 {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        guard count == 1 else { throw Failure(description: "connection ended (\(count), errno \(errno))") }
        return byte
    }
}
