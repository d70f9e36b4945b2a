import Foundation

/// The kernel send buffer (`SO_SNDBUF`) a server gives each accepted
/// WebSocket connection: ``ServerConfiguration/sendBufferBytes``, else the
/// environment variable `ENTITYSTREAM_SERVER_SEND_BUFFER` (bytes), else none
/// (the kernel's autotuning, on Linux up to `net.ipv4.tcp_wmem`'s maximum,
/// 4 MiB by default).
///
/// A test seam, not a user setting: a subscriber that stops reading fills
/// this buffer before its queue and the slow-client policy come into play,
/// so the slow-subscriber tests set a few KiB to reach the policy after
/// kilobytes instead of megabytes (the variable reaches `entitystream serve`
/// and `stream-simulator` run as child processes). A fixed buffer turns off
/// autotuning and caps a distant client's throughput at buffer ÷ round trip,
/// which is why no flag offers it.
package enum SocketSendBuffer {
    /// The environment variable read when the configuration sets nothing.
    package static let variable = "ENTITYSTREAM_SERVER_SEND_BUFFER"
    /// The sizes accepted: from the kernel's least (about 4.5 KiB) to 64 MiB.
    package static let bounds = 4096...(64 << 20)

    /// The buffer to set: `configured` when given, else the environment's;
    /// nil leaves the kernel's. Throws ``TransportError/serverStartFailed(detail:)``
    /// naming a size out of ``bounds`` or a variable that is not a byte count.
    package static func resolve(_ configured: Int?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(TransportError) -> Int? {
        if let configured {
            guard bounds.contains(configured) else {
                throw .serverStartFailed(detail: "a socket send buffer of \(configured) bytes: give \(bounds.lowerBound) to \(bounds.upperBound)")
            }
            return configured
        }
        guard let text = environment[variable] else { return nil }
        guard let bytes = Int(text), bounds.contains(bytes) else {
            throw .serverStartFailed(detail: "\(variable)='\(text)': give a whole number of bytes from \(bounds.lowerBound) to \(bounds.upperBound)")
        }
        return bytes
    }

    /// Sets `bytes` as `descriptor`'s send buffer (the kernel doubles it for
    /// its bookkeeping). A failure leaves the kernel's buffer, which only
    /// makes a slow subscriber take longer to reach its policy.
    static func apply(_ bytes: Int, to descriptor: Int32) {
        var size = Int32(bytes)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
}
