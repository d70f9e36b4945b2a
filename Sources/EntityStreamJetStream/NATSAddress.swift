/// Where a JetStream stream or subject is: `nats://[CREDENTIALS@]HOST:PORT[,HOST:PORT…]/NAME`.
///
/// Several servers (a cluster) are separated by commas; the client tries
/// them all and follows the cluster as it changes. CREDENTIALS are a token
/// (`nats://TOKEN@host:4222/…`) or `USER:PASSWORD`; the environment's
/// `NATS_TOKEN`, or `NATS_USER` and `NATS_PASSWORD`, are used when the URL
/// has none. Credentials are never part of ``description`` (what is
/// printed and logged). NAME is the subject prefix (publish) or the stream
/// (consume), checked to be a valid subject or stream name.
public struct NATSAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Credentials: Sendable, Hashable {
        case none
        case token(String)
        case user(String, password: String)
    }

    /// `nats://host:port` for each server, without credentials.
    public let servers: [String]
    public let name: String
    public let credentials: Credentials

    public init(parsing text: String, nameIs what: String,
                environment: [String: String] = [:]) throws(NATSAddressError) {
        guard text.hasPrefix("nats://") else { throw .notNATS(what: what, start: String(text.prefix(8))) }
        let rest = text.dropFirst("nats://".count)
        guard let slash = rest.firstIndex(of: "/") else { throw .missingPath(what: what) }
        var authority = String(rest[..<slash])
        let name = String(rest[rest.index(after: slash)...])
        var credentials = Credentials.none
        if let at = authority.lastIndex(of: "@") {
            let userInfo = String(authority[..<at])
            authority = String(authority[authority.index(after: at)...])
            guard !userInfo.isEmpty else { throw .emptyCredentials }
            if let colon = userInfo.firstIndex(of: ":") {
                credentials = .user(String(userInfo[..<colon]), password: String(userInfo[userInfo.index(after: colon)...]))
            } else {
                credentials = .token(userInfo)
            }
        } else if let token = environment["NATS_TOKEN"], !token.isEmpty {
            credentials = .token(token)
        } else if let user = environment["NATS_USER"], !user.isEmpty {
            credentials = .user(user, password: environment["NATS_PASSWORD"] ?? "")
        }
        var servers: [String] = []
        for part in authority.split(separator: ",", omittingEmptySubsequences: false) {
            let server = part.hasPrefix("nats://") ? String(part.dropFirst(7)) : String(part)
            guard let colon = server.lastIndex(of: ":"), colon != server.startIndex,
                  let port = Int(server[server.index(after: colon)...]), (1...65535).contains(port) else {
                throw .invalidServer(String(server))
            }
            let host = server[..<colon]
            guard !host.contains(where: { $0 == "/" || $0 == "@" || $0.isWhitespace }) else { throw .invalidHost(String(host)) }
            servers.append("nats://\(server)")
        }
        guard !servers.isEmpty else { throw .noServer }
        guard servers.count <= 64 else { throw .tooManyServers(servers.count) }
        try Self.checkName(name, what: what)
        self.servers = servers
        self.name = name
        self.credentials = credentials
    }

    /// A subject (dot-separated tokens, no wildcards) or a stream name (one
    /// token): 1 to 200 bytes of printable ASCII.
    static func checkName(_ name: String, what: String) throws(NATSAddressError) {
        guard !name.isEmpty else { throw .missingName(what: what) }
        guard name.utf8.count <= 200 else { throw .nameTooLong(what: what) }
        let allowsDots = what == "subject"
        for token in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !token.isEmpty else { throw .emptyToken(what: what, name: name) }
            guard allowsDots || token.count == name.count else { throw .dotInStreamName(name) }
            guard token.utf8.allSatisfy({ SubjectToken.isKept($0) }) else {
                throw .invalidCharacters(what: what, name: name, dotted: allowsDots)
            }
        }
    }

    public var description: String { "nats://\(servers.map { $0.dropFirst(7) }.joined(separator: ","))/\(name)" }
}

/// A `nats://` address that cannot be used, by what was wrong. `what`
/// names the part after the servers (`stream`, `subject`).
public enum NATSAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a `nats://` URL (its first 8 characters).
    case notNATS(what: String, start: String)
    /// No `/NAME` after the servers.
    case missingPath(what: String)
    /// `@` with nothing before it.
    case emptyCredentials
    /// A server that is not `HOST:PORT` with a port from 1 to 65535.
    case invalidServer(String)
    /// A host with a `/`, `@` or white space.
    case invalidHost(String)
    case noServer
    /// More than 64 servers.
    case tooManyServers(Int)
    /// Nothing after the `/`.
    case missingName(what: String)
    /// A name over 200 bytes.
    case nameTooLong(what: String)
    /// A name with an empty dot-separated token.
    case emptyToken(what: String, name: String)
    /// A stream name with a dot.
    case dotInStreamName(String)
    /// A name with characters other than letters, digits, `-` and `_` (and dots between tokens, `dotted`).
    case invalidCharacters(what: String, name: String, dotted: Bool)

    public var description: String {
        switch self {
        case .notNATS(let what, let start): return "expected nats://HOST:PORT/\(what.uppercased()), not a URL starting '\(start)'"
        case .missingPath(let what): return "missing the /\(what.uppercased()) after the servers"
        case .emptyCredentials: return "empty credentials before '@'"
        case .invalidServer(let server): return "each server must be HOST:PORT with a port from 1 to 65535, not '\(server)'"
        case .invalidHost(let host): return "invalid host '\(host)'"
        case .noServer: return "no server given"
        case .tooManyServers(let count): return "at most 64 servers, not \(count)"
        case .missingName(let what): return "missing the \(what) after the '/'"
        case .nameTooLong(let what): return "the \(what) is longer than 200 bytes"
        case .emptyToken(let what, let name): return "the \(what) '\(name)' has an empty token"
        case .dotInStreamName(let name): return "a stream name cannot contain '.': '\(name)'"
        case .invalidCharacters(let what, let name, let dotted):
            return "the \(what) '\(name)' may hold only letters, digits, '-' and '_'\(dotted ? " between dots" : "")"
        }
    }
}
