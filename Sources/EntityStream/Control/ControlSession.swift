import EntityStreamCore
import EntityStreamModel

/// What control commands act on: the pipeline (store, bus, clock), the
/// running source (filter changes, status facts) and the analysis runtime.
public struct ControlSession: Sendable {
    public let pipeline: StreamPipeline
    public let target: any ControlTarget
    public let runtime: AnalysisRuntime

    public init(pipeline: StreamPipeline, target: any ControlTarget, runtime: AnalysisRuntime) {
        self.pipeline = pipeline
        self.target = target
        self.runtime = runtime
    }
}

/// What control commands act on that the running mode (live connection or
/// replay) provides.
public protocol ControlTarget: Sendable {
    /// Applies a new filter; returns the outcome (applied, rejected, timed out).
    func setFilter(_ filter: StreamFilter) async -> FilterOutcome
    /// What the source says of itself (status, connection attempt, URL,
    /// counters…), for the `status` command and the progress line; its
    /// ``SourceStatus/status`` is the stream's status in one word
    /// (`connected`, `replaying`, …), which every analysis result carries.
    func sourceStatus() async -> any SourceStatus
}
