import Foundation

/// Raw bytes to and from a loopback port, for tests that speak below HTTP
/// and WebSocket (malformed requests, forged headers, mutated frames).
///
/// ``exchange(port:send:readLimit:timeoutMilliseconds:)`` connects, writes
/// every byte, then reads what the server answers until it closes, the
/// limit is reached, or nothing arrives for the timeout (with
/// `closeWriting`, it shuts its sending side after the bytes, as a client
/// that has nothing more to say). It runs on its own
/// thread (blocking calls never occupy a Swift concurrency thread) and never
/// throws: a refused connection or a reset is an empty or partial answer.
public enum RawTCPExchange {
    /// What the server did with the bytes.
    public struct Answer: Sendable {
        /// Everything read before the end.
        public var bytes: [UInt8]
        /// The connection was made (false: refused or unreachable).
        public var connected: Bool
        /// The server closed the connection (false: the timeout or the limit ended the read).
        public var closedByServer: Bool

        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    public static func exchange(port: Int, send bytes: [UInt8], readLimit: Int = 1 << 20,
                                timeoutMilliseconds: Int = 15_000, closeWriting: Bool = false) async -> Answer {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: run(port: port, bytes: bytes, readLimit: readLimit, timeoutMilliseconds: timeoutMilliseconds,
                                                   closeWriting: closeWriting))
            }
            thread.start()
        }
    }

    private static func run(port: Int, bytes: [UInt8], readLimit: Int, timeoutMilliseconds: Int, closeWriting: Bool) -> Answer {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return Answer(bytes: [], connected: false, closedByServer: false) }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutMilliseconds / 1000, tv_usec: Int((timeoutMilliseconds % 1000) * 1000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard LoopbackSocket.connect(descriptor, port: port) else { return Answer(bytes: [], connected: false, closedByServer: false) }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { break }
                offset += written
            }
        }
        if closeWriting { _ = shutdown(descriptor, Int32(SHUT_WR)) }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while answer.count < readLimit {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return Answer(bytes: answer, connected: true, closedByServer: true) }
            if count < 0 {
                if errno == EINTR { continue }
                // A reset counts as the server closing; a timeout does not.
                return Answer(bytes: answer, connected: true, closedByServer: errno == ECONNRESET)
            }
            answer.append(contentsOf: chunk[0..<count])
        }
        return Answer(bytes: answer, connected: true, closedByServer: false)
    }
}
