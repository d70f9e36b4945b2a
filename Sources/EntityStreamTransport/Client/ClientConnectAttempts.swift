/// Opens a client connection again, with a fresh session, when
/// libwebsockets' context-creation race explains its failure (see
/// ``TLSContextEpoch``); any other outcome is the answer. Shared by the
/// WebSocket and HTTP clients.
enum ClientConnectAttempts {
    /// Attempts in all, the first included, before the failure is reported.
    static let limit = 3

    /// Runs `attempt` on sessions from `makeSession` until one's outcome is
    /// not the race's, or `limit` attempts were made; returns the last.
    static func run<Session: ClientSession, Success>(
        makeSession: () -> Session,
        _ attempt: (Session) async -> Result<Success, TransportError>
    ) async -> (session: Session, result: Result<Success, TransportError>) {
        var made = 1
        while true {
            let session = makeSession()
            let result = await attempt(session)
            if case .failure = result, session.lostToContextCreation, made < limit {
                made += 1
                continue
            }
            return (session, result)
        }
    }
}
