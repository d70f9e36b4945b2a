#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A loopback TCP port that refuses connections and that no other server
/// can take while this value is alive: a socket bound to 127.0.0.1 that
/// never listens (Linux answers a connection to it with a reset:
/// "connection refused"). Unlike a server started and stopped, whose port
/// the kernel may hand to the next test's server, the port stays reserved
/// until ``close()``.
public final class RefusingPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        (descriptor, port) = try LoopbackSocket.bind(reusingAddress: false)
    }

    /// Releases the port.
    public func close() { Glibc.close(descriptor) }
}
