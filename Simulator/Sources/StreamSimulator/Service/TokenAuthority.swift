import EntityStreamLocking
import EntityStreamTransport
import EntityStreamModel

/// The simulator's tokens: the one the REST description requires
/// (`--token`), and the short-lived socket token it hands out in
/// `streamUrls`, which ``rotate()`` replaces (`--expire-token-after`).
/// Thread-safe.
final class TokenAuthority: Sendable {
    enum Check: Equatable { case accepted, missing, invalid }

    let restToken: String?
    private let socket: LockedState<(token: String?, generation: Int)>

    init(token: String?, rotating: Bool) {
        restToken = token
        socket = LockedState((token ?? (rotating ? "sim-token-1" : nil), 1))
    }

    /// The socket token the description hands out now.
    var socketToken: String? { socket.withLock { $0.token } }
    /// How many socket tokens were issued (1 before any rotation); safe to log, unlike the token.
    var generation: Int { socket.withLock { $0.generation } }

    /// The token a REST request carries: the `token` parameter (query or
    /// form; the last one), else the `X-Esri-Authorization` header (or
    /// `Authorization`) as `Bearer <token>`, as the ArcGIS API for Python
    /// and the JS SDK send it. Never logged.
    static func restToken(parameters: [(name: String, value: String)], headers: HTTPHeaders) -> String? {
        if let token = parameters.last(where: { $0.name == "token" })?.value, !token.isEmpty { return token }
        for name in ["X-Esri-Authorization", "Authorization"] {
            guard let value = headers[name]?.trimmingSpaces else { continue }
            let words = value.split(separator: " ", maxSplits: 1)
            if words.count == 2, words[0].lowercased() == "bearer" {
                let token = String(words[1]).trimmingSpaces
                if !token.isEmpty { return token }
            }
        }
        return nil
    }

    /// ``checkREST(_:)`` of the token `request` carries in `parameters` or its headers.
    func checkREST(parameters: [(name: String, value: String)], headers: HTTPHeaders) -> Check {
        checkREST(Self.restToken(parameters: parameters, headers: headers))
    }

    func checkREST(_ given: String?) -> Check {
        guard let restToken else { return .accepted }
        guard let given, !given.isEmpty else { return .missing }
        return given == restToken ? .accepted : .invalid
    }

    func checkSocket(_ given: String?) -> Check {
        guard let expected = socketToken else { return .accepted }
        guard let given, !given.isEmpty else { return .missing }
        return given == expected ? .accepted : .invalid
    }

    /// Issues a new socket token and returns it; the old one stops working.
    func rotate() -> String {
        socket.withLock { state in
            state.generation += 1
            let base = restToken ?? "sim-token"
            state.token = "\(base)-\(state.generation)"
            return state.token!
        }
    }
}
