import CLibWebSockets
import EntityStreamLocking

/// Stable `lws_retry_bo_t` values for keepalive settings.
///
/// libwebsockets keeps a pointer to the policy for a connection's whole life,
/// so policies are allocated once per distinct setting and never freed.
enum RetryPolicies {
    private struct Key: Hashable { var ping: UInt16; var hangUp: UInt16 }
    private static let policies = LockedState<[Key: UnsafeMutablePointer<lws_retry_bo_t>]>([:])

    /// The policy that pings after `ping` idle seconds and hangs up after
    /// `hangUp` seconds without a pong (both 0: no keepalive).
    static func keepalive(ping: UInt16, hangUp: UInt16) -> UnsafePointer<lws_retry_bo_t> {
        let key = Key(ping: ping, hangUp: ping == 0 ? 0 : max(hangUp, ping + 1))
        return policies.withLock { policies in
            if let existing = policies[key] { return UnsafePointer(existing) }
            let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
            policy.initialize(to: lws_retry_bo_t())
            policy.pointee.secs_since_valid_ping = key.ping
            policy.pointee.secs_since_valid_hangup = key.hangUp
            policies[key] = policy
            return UnsafePointer(policy)
        }
    }
}
