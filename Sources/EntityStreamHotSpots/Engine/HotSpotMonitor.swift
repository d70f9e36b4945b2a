/// Cooperative cancellation and progress for a long analysis.
///
/// The engine calls ``shouldStop`` every ``pollInterval`` features (or sites,
/// or pairs of passes) and throws `CancellationError` as soon as it returns
/// true; it calls ``progress`` at the same points with an overall fraction
/// that never decreases (0 … 1) and the stage it is in. Both closures may be
/// called from the thread running the analysis, never concurrently with each
/// other; they must be cheap. The default never stops and reports nothing.
public struct HotSpotMonitor: Sendable {
    /// The stages of an analysis, in the order they run.
    public enum Stage: String, Sendable, Hashable {
        case aggregating
        case indexing
        case choosingDistanceBand
        case computingGiStar
        case assigningBins
    }

    public var shouldStop: @Sendable () -> Bool
    public var progress: @Sendable (_ fraction: Double, _ stage: Stage) -> Void
    /// How many items pass between two polls (clamped to 1…1,000,000).
    public var pollInterval: Int

    public init(shouldStop: @escaping @Sendable () -> Bool = { false },
                progress: @escaping @Sendable (_ fraction: Double, _ stage: Stage) -> Void = { _, _ in },
                pollInterval: Int = 4096) {
        self.shouldStop = shouldStop
        self.progress = progress
        self.pollInterval = min(max(pollInterval, 1), 1_000_000)
    }

    /// Never stops, reports nothing.
    public static let none = HotSpotMonitor()
}
