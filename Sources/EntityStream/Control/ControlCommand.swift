import EntityStreamCore
import EntityStreamModel

/// One kind of control command read from stdin while a stream runs (one JSON
/// object per line, with an `id` its answers carry). Each kind lives in its
/// own file; the stream's own are listed in ``ControlCommandRegistry/streamControl``,
/// an analysis's come with its registration (`EntityStreamAnalyses`), and a
/// program builds its ``ControlCommandRegistry`` from both.
///
/// `init(members:)` parses and checks everything it can without the
/// session (types, ranges, syntax), throwing a ``ControlCommandError`` that
/// names the member. ``start(in:)`` then either answers at once (a
/// `response` event) or returns a job for the ``AnalysisRuntime``.
public protocol ControlCommand: Sendable {
    /// The `"command"` name, e.g. `query-observations`.
    static var name: String { get }
    /// The members it takes besides `id` and `command`; others are refused by name.
    static var members: Set<String> { get }
    /// Parses the command's members.
    init(members: CommandMembers) throws(ControlCommandError)
    /// The command's `id`.
    var id: JSONValue { get }
    /// Runs it in `session`.
    func start(in session: ControlSession) async -> ControlCommandOutcome
}

/// What a command's start produced.
public enum ControlCommandOutcome: Sendable {
    /// Answer at once with a `response` event.
    case response(ControlResponse)
    /// Start an analysis job: `accepted`, results, then a final line.
    case job(any AnalysisJob)
}

extension ControlCommand {
    /// A `response` for this command.
    public func response(ok: Bool, result: JSONValue? = nil, error: String? = nil) -> ControlCommandOutcome {
        .response(ControlResponse(id: id, command: Self.name, ok: ok, result: result, error: error))
    }
}
