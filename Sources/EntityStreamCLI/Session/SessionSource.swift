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
}
