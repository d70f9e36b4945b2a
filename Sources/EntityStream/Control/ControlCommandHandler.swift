import EntityStreamCore
import EntityStreamModel

/// Runs control commands: parses each line through the registry, answers
/// with a `response` event carrying the command's `id` — errors too, with
/// `"ok":false` and a message naming the problem — or starts the analysis
/// job the command asks for (whose `analysis` events then answer it).
public struct ControlCommandHandler: Sendable {
    public let session: ControlSession
    public let registry: ControlCommandRegistry

    public init(session: ControlSession, registry: ControlCommandRegistry) {
        self.session = session
        self.registry = registry
    }

    /// Handles one item of standard input: a command line, or a line over
    /// the limit, answered with an error response (`"id":null`, since the
    /// line was not read).
    public func handle(_ input: StandardInputLine) async {
        switch input {
        case .line(let bytes):
            await handle(line: bytes)
        case .tooLong(let byteCount):
            await respond(ControlResponse(id: .null, command: "unknown", ok: false,
                                          error: "a command line of \(byteCount) bytes is longer than the limit of \(StandardInputLines.maximumLineLength) bytes; it was skipped"))
        }
    }

    /// Handles one line of standard input.
    public func handle(line: [UInt8]) async {
        let command: any ControlCommand
        do {
            command = try registry.parse(line: line)
        } catch {
            await respond(ControlResponse(id: error.id, command: error.command ?? "unknown", ok: false, error: error.message))
            return
        }
        switch await command.start(in: session) {
        case .response(let response):
            await respond(response)
        case .job(let job):
            let name = type(of: command).name
            do {
                try await session.runtime.start(job, id: command.id, command: name)
            } catch {
                await respond(ControlResponse(id: command.id, command: name, ok: false, error: error.description))
            }
        }
    }

    private func respond(_ response: ControlResponse) async {
        let pipeline = session.pipeline
        await pipeline.publish(StreamEvent(time: pipeline.clock.now(), payload: .response(response)))
    }
}
