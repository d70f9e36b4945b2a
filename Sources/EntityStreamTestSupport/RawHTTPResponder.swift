#if canImport(Glibc)
import Glibc
#endif
import Foundation
import EntityStreamLocking

/// A loopback TCP server for tests that answers every HTTP request with
/// bytes the test wrote itself — headers included — then closes the
/// connection: the way to serve what a real server never should (a
/// `Content-Length` larger than the body, a body cut mid-JSON).
///
/// Listens on 127.0.0.1 on a free port (``port``) from ``start(response:)``;
/// each connection (on its own thread) is read up to the end of the request head (and the body
/// its `Content-Length` announces) and answered; a complete answer is left
/// for the client to close, one cut short of its `Content-Length` is
/// half-closed at once (at most 5 s are spent on a connection after answering). ``requests``
/// records the request heads. ``stop()`` closes the listener. Thread-safe.
public final class RawHTTPResponder: Sendable {
    public let port: Int
    private let listener: Int32
    private let log: LockedState<[String]>
    /// Set (with the listener shut down) under this lock by ``stop()``; the
    /// accepting thread closes the listener under it too, so the descriptor
    /// is never closed while it may still be used, nor used once closed.
    private let stopped = LockedState(false)

    private init(port: Int, listener: Int32, log: LockedState<[String]>) {
        self.port = port
        self.listener = listener
        self.log = log
    }

    /// Starts a server answering every request with `response(requestHead)`.
    public static func start(response: @escaping @Sendable (String) -> [UInt8]) throws -> RawHTTPResponder {
        let (descriptor, port) = try LoopbackSocket.bind(reusingAddress: true)
        guard listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        let log = LockedState<[String]>([])
        let server = RawHTTPResponder(port: port, listener: descriptor, log: log)
        let thread = Thread {
            while true {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 {
                    let done = server.stopped.withLock { stopped in
                        if stopped { close(descriptor) }
                        return stopped
                    }
                    if done { return }
                    continue
                }
                Thread { Self.serve(connection, log: log, response: response) }.start()
            }
        }
        thread.start()
        return server
    }

    /// Reads one request from `connection`, answers it, and closes it.
    private static func serve(_ connection: Int32, log: LockedState<[String]>, response: @Sendable (String) -> [UInt8]) {
        let head = readRequest(connection)
        log.withLock { $0.append(head) }
        let bytes = response(head)
        let total = bytes.count
        var sent = 0
        while sent < total {
            let count = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + sent, total - sent, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }
            sent += count
        }
        // A complete answer: leave closing to the client (as a keep-alive
        // server would), reading until it does. An answer cut short of its
        // Content-Length: half-close at once, then drain — closing with
        // unread bytes would send a reset instead of the answer.
        if !isComplete(bytes) { shutdown(connection, Int32(SHUT_WR)) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var scratch = [UInt8](repeating: 0, count: 1024)
        while scratch.withUnsafeMutableBytes({ recv(connection, $0.baseAddress!, 1024, 0) }) > 0 {}
        close(connection)
    }

    /// The heads of the requests answered so far.
    public var requests: [String] { log.withLock { $0 } }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting connections: when it returns, connecting to the port
    /// is refused. Does not wait for connections being answered.
    public func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
        }
    }

    /// An HTTP/1.1 response: the status line, `Content-Type`, `Content-Length`
    /// (the body's, unless `contentLength` says otherwise) and the body.
    public static func response(status: Int = 200, contentType: String = "application/json", body: [UInt8], contentLength: Int? = nil) -> [UInt8] {
        let head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Type: \(contentType)\r\nContent-Length: \(contentLength ?? body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// True when `response`'s body is as long as its `Content-Length` says.
    static func isComplete(_ response: [UInt8]) -> Bool {
        let text = String(decoding: response, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound]
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        guard let length = lengthLine.flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }) else { return false }
        return response.count - text[..<end.upperBound].utf8.count >= length
    }

    private static func readRequest(_ connection: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, 4096, 0) }
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let head = String(text[..<end.lowerBound])
            let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            let bodyLength = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            let headBytes = text[..<end.upperBound].utf8.count
            if received.count - headBytes >= bodyLength { return head }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
