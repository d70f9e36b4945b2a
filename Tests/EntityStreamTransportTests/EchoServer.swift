import EntityStreamTransport

/// A server for tests: WebSocket `/echo` echoes every text message back;
/// other behaviour comes from the closures given.
func startEchoServer(
    configure: (inout ServerConfiguration) -> Void = { _ in }
) async throws -> TransportServer {
    var configuration = ServerConfiguration()
    configuration.webSocketResponder = { request in
        guard request.path == "/echo" else { return .reject(status: 404, body: "no such path") }
        return .accept { socket in
            do {
                for try await batch in socket.inbound {
                    for index in batch.indices { try await socket.send(batch.text(at: index)) }
                }
            } catch {}
        }
    }
    configure(&configuration)
    return try await TransportServer.start(configuration)
}
