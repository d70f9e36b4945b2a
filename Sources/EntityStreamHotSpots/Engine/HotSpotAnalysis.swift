/// A Getis-Ord Gi* hot-spot analysis as ArcGIS's Hot Spot Analysis and
/// Optimized Hot Spot Analysis compute it; a pure function of its input and
/// options.
///
/// ``run(_:monitor:)``:
/// 1. aggregates incidents (``HotSpotAggregation``) or takes weighted points
///    as they are;
/// 2. refuses fewer than ``HotSpotOptions/minimumFeatures`` features (and
///    fewer than ``HotSpotOptions/minimumIncidents`` incidents) unless
///    forced, and values whose population variance is ≤ 1e-12;
/// 3. uses the given distance band (refusing one beyond the data's extent) or
///    chooses it (``DistanceBandDecision``);
/// 4. computes Gi* with binary weights within the band, the feature itself
///    included (``GiStar``), its two-sided normal p-value, and `Gi_Bin` with
///    or without FDR (``SignificanceBins``).
///
/// Neighbour searches run on a uniform grid over distinct locations:
/// O(n + pairs within the band), bounded memory (about 150 bytes per
/// feature), no allocation per pair. Throws ``HotSpotError`` for input it
/// cannot analyse and `CancellationError` when the monitor asks it to stop.
/// Thread-safe (a value); runs on the caller's thread.
public struct HotSpotAnalysis: Sendable {
    public var options: HotSpotOptions

    public init(options: HotSpotOptions = HotSpotOptions()) {
        self.options = options
    }

    /// The variance at or below which values count as constant (ArcGIS's limit).
    public static let minimumVariance = 1e-12

    /// The steps, each a pure function of what the ones before it produced
    /// (see `HotSpotAnalysisSteps.swift`): refuse input too small to analyse,
    /// take the analysed features, refuse too few of them or constant
    /// values, fix the band, score, assemble. Progress never decreases.
    public func run(_ input: HotSpotInput, monitor: HotSpotMonitor = .none) throws -> HotSpotResult {
        try validateOptions()
        var reported = 0.0
        func report(_ fraction: Double, _ stage: HotSpotMonitor.Stage) {
            let clamped = min(max(fraction, reported), 1)
            reported = clamped
            monitor.progress(clamped, stage)
        }
        if monitor.shouldStop() { throw CancellationError() }
        report(0, .aggregating)

        let inputForced = try checkInputSize(input)
        let frame = try PlanarFrame.make(input.coordinates, x: input.x, y: input.y)
        let features = try analysedFeatures(input, frame: frame, monitor: monitor, report: report)
        report(0.1, .indexing)
        let countForced = try checkFeatureCount(features.values.count, what: features.what)
        let moments = try ValueMoments(features.values)
        let decision = try distanceBand(sites: features.sites, values: features.values, monitor: monitor) {
            report(0.1 + 0.55 * $0, .choosingDistanceBand)
        }
        report(0.65, .indexing)
        report(0.66, .computingGiStar)
        let scores = try GiStarScores(sites: features.sites, values: features.values, moments: moments, band: decision.band,
                                      monitor: monitor) { report(0.66 + 0.29 * $0, .computingGiStar) }
        report(0.95, .assigningBins)
        let result = assemble(input, features: features, moments: moments, decision: decision, scores: scores,
                              frame: frame, forced: inputForced || countForced)
        report(1, .assigningBins)
        return result
    }

    private func validateOptions() throws(HotSpotError) {
        if let band = options.distanceBand, !(band > 0 && band.isFinite) {
            throw .invalidOption(name: "distanceBand", value: "\(band)", reason: "must be a positive finite distance")
        }
        if case .fishnet(let size?) = options.aggregation, !(size > 0 && size.isFinite) {
            throw .invalidOption(name: "cellSize", value: "\(size)", reason: "must be a positive finite distance")
        }
        guard options.minimumFeatures >= 0 else {
            throw .invalidOption(name: "minimumFeatures", value: "\(options.minimumFeatures)", reason: "must not be negative")
        }
        guard options.minimumIncidents >= 0 else {
            throw .invalidOption(name: "minimumIncidents", value: "\(options.minimumIncidents)", reason: "must not be negative")
        }
    }
}
