#if canImport(Glibc)
import Glibc
#endif
import Foundation
import EntityStreamLocking

/// Resolves host names off the service thread, so a slow DNS answer never
/// stalls other connections, and so a DNS failure is reported as such rather
/// than as libwebsockets' generic connect error.
enum AddressResolver {
    /// The first numeric address for `host` (IPv4 preferred), or a
    /// ``TransportError/dnsFailure(host:reason:)``. The lookup runs on its own
    /// thread; cancelling the calling task answers ``TransportError/cancelled``
    /// at once (the lookup's late answer is then dropped).
    static func resolve(_ host: String) async throws(TransportError) -> String {
        if isNumeric(host) { return host }
        let answer = LockedState<CheckedContinuation<Result<String, TransportError>, Never>?>(nil)
        let result: Result<String, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = answer.withLock { waiting -> Bool in
                    if Task.isCancelled { return true }
                    waiting = continuation
                    return false
                }
                if cancelled { return continuation.resume(returning: .failure(.cancelled)) }
                let thread = Thread {
                    ThreadName.setCurrent("entitystream-dns")
                    let found = lookup(host)
                    answer.withLock { waiting in
                        defer { waiting = nil }
                        return waiting
                    }?.resume(returning: found)
                }
                thread.start()
            }
        } onCancel: {
            answer.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }?.resume(returning: .failure(.cancelled))
        }
        return try result.get()
    }

    private static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private static func lookup(_ host: String) -> Result<String, TransportError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            return .failure(.dnsFailure(host: host, reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var ipv4: [String] = []
        var ipv6: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count),
                           nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if current.pointee.ai_family == AF_INET { ipv4.append(text) } else { ipv6.append(text) }
            }
            node = current.pointee.ai_next
        }
        guard let best = ipv4.first ?? ipv6.first else {
            return .failure(.dnsFailure(host: host, reason: "no usable address"))
        }
        return .success(best)
    }
}
