/// Decides which engine progress reports are worth a line: the first of
/// each stage, then one each time the overall fraction has grown by at least
/// ``step`` since the last line. So a whole analysis says at most about
/// 1/step + 5 things, however long it runs; and nothing here reads a clock.
/// A value type.
public struct HotSpotProgressThrottle: Sendable, Hashable {
    public let step: Double
    private var lastFraction = -Double.infinity
    private var lastStage: HotSpotMonitor.Stage?

    /// `step` is clamped to 0.01…1.
    public init(step: Double = 0.1) {
        self.step = min(max(step.isNaN ? 0.1 : step, 0.01), 1)
    }

    /// True when this report should be published (and remembers it).
    public mutating func offer(_ fraction: Double, _ stage: HotSpotMonitor.Stage) -> Bool {
        guard stage != lastStage || fraction >= lastFraction + step else { return false }
        lastStage = stage
        lastFraction = fraction
        return true
    }
}
