#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port that nothing listens on, for as long as the value
/// lives: a socket bound to it without `listen`, so connecting is refused
/// and no other test can take the port meanwhile (a port freed by stopping
/// a server can be taken by a server that another test starts, and the
/// connection then reaches that one instead).
public final class ClosedPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    /// Throws when no socket can be bound.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError("ClosedPort: socket failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestSupportError("ClosedPort: bind failed: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
