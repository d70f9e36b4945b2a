#if canImport(Glibc)
import Glibc
#endif

/// Where a ``TransportServer`` listens: exactly one local address (IPv4 or
/// IPv6), or every interface.
///
/// ``init(parsing:)`` accepts a numeric IPv4 or IPv6 address (IPv6 with or
/// without brackets), `localhost` (127.0.0.1), `0.0.0.0` (every IPv4
/// interface) and `::` or `*` (every interface, IPv4 and IPv6); anything else
/// throws ``TransportError/serverStartFailed(detail:)`` naming the text.
/// ``checkUsable()`` binds a probe socket to say whether this machine has
/// the address, before any server starts. A value type.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    /// The numeric address, or nil for every interface of `family`
    /// (`ipv6` with nil: IPv6 and IPv4 both).
    public let address: String?
    public let family: Family

    /// Loopback IPv4, the default.
    public static let loopback = ListenAddress(address: "127.0.0.1", family: .ipv4)
    /// Every interface, IPv4 and IPv6.
    public static let everyInterface = ListenAddress(address: nil, family: .ipv6)

    private init(address: String?, family: Family) {
        self.address = address
        self.family = family
    }

    public init(parsing text: String) throws(TransportError) {
        var host = text
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        switch host {
        case "localhost": self = .loopback; return
        case "0.0.0.0": self = ListenAddress(address: nil, family: .ipv4); return
        case "::", "*": self = .everyInterface; return
        default: break
        }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self = ListenAddress(address: host, family: .ipv4)
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            self = ListenAddress(address: host, family: .ipv6)
        } else {
            throw .serverStartFailed(detail: "'\(text)' is not an address to listen on (give a numeric IPv4 or IPv6 address of this machine, localhost, 0.0.0.0 or ::)")
        }
    }

    /// `text` (`--host`), when it is an address this machine can listen on;
    /// else ``TransportError/unusableListenAddress(detail:)`` saying why.
    public static func checkedUsable(_ text: String) throws(TransportError) -> String {
        do throws(TransportError) {
            try ListenAddress(parsing: text).checkUsable()
        } catch .serverStartFailed(let detail) {
            throw .unusableListenAddress(detail: detail)
        }
        return text
    }

    /// Throws ``TransportError/serverStartFailed(detail:)`` when this machine
    /// cannot listen on the address (it is not one of its addresses).
    public func checkUsable() throws(TransportError) {
        guard let address else { return }
        let descriptor = socket(family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .serverStartFailed(detail: "cannot open a socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let status: Int32
        if family == .ipv4 {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            _ = inet_pton(AF_INET, address, &socketAddress.sin_addr)
            status = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            _ = inet_pton(AF_INET6, address, &socketAddress.sin6_addr)
            status = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        if status != 0 {
            throw .serverStartFailed(detail: "cannot listen on \(self): \(String(cString: strerror(errno)))")
        }
    }

    /// The host to put in URLs that reach this server: the address
    /// (bracketed for IPv6), or loopback when listening everywhere.
    public var urlHost: String {
        guard let address else { return family == .ipv4 ? "127.0.0.1" : "127.0.0.1" }
        return family == .ipv6 ? "[\(address)]" : address
    }

    /// `127.0.0.1`, `[::1]`, `0.0.0.0 (every IPv4 interface)`, `* (every interface)`.
    public var description: String {
        switch (address, family) {
        case (let address?, .ipv4): return address
        case (let address?, .ipv6): return "[\(address)]"
        case (nil, .ipv4): return "0.0.0.0 (every IPv4 interface)"
        case (nil, .ipv6): return "* (every interface)"
        }
    }
}
