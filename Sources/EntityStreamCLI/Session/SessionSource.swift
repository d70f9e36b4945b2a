import EntityStream
import EntityStreamCore

/// Where a streaming session's data comes from: a live connection, a
/// replayed file, or the embedded demo.
protocol SessionSource: Sendable {
    /// Feeds the pipeline until the source ends (nil) or fails (the reason).
    func run() async -> String?
    /// Stops feeding (disconnects; cancels a replay). Idempotent.
    func stop() async
    /// What control commands act on.
    var controlTarget: any ControlTarget { get }
    /// What the source says about its stream (description text, spatial
    /// reference), for `serve` to describe it; none by default.
    func streamFacts() async -> SourceStreamFacts
}

extension SessionSource {
    func streamFacts() async -> SourceStreamFacts { SourceStreamFacts() }
}

/// What a source knows about its stream beyond the schema: what `serve`
/// says in the stream service it serves. Never a credential.
struct SourceStreamFacts: Sendable, Hashable {
    var description: String?
    var spatialReference: Int?
}
