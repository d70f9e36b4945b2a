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

        var forced = false
        let excluded = input.excluded
        let minimum = input.kind == .incidents ? options.minimumIncidents : options.minimumFeatures
        if excluded.outsideGeographicRange > 0, input.count < minimum,
           !options.force || input.count < HotSpotOptions.absoluteMinimumFeatures, let example = excluded.outsideExample {
            throw HotSpotError.coordinatesOutsideWGS84(kept: input.count, minimum: minimum, excluded: excluded.outsideGeographicRange,
                                                       example: example, swapped: excluded.inRangeIfSwapped * 2 > excluded.outsideGeographicRange)
        }
        if input.kind == .incidents, input.count < options.minimumIncidents {
            guard options.force else { throw HotSpotError.tooFewIncidents(count: input.count, minimum: options.minimumIncidents) }
            forced = true
        }

        let frame = try PlanarFrame.make(input.coordinates, x: input.x, y: input.y)
        let plane = frame.project(x: input.x, y: input.y)

        // 1. The analysed features.
        var featureX: [Double], featureY: [Double], values: [Double]
        var records: [Int32]
        var cells: [(column: Int32, row: Int32)] = []
        var fishnet: Fishnet?
        var aggregation: HotSpotAggregation?
        var valueField: String?
        let sites: Sites
        let what: String
        switch input.kind {
        case .weighted:
            featureX = input.x
            featureY = input.y
            values = input.values
            records = input.recordNumbers
            what = "features"
            report(0.02, .indexing)
            sites = try Sites(x: input.x, y: input.y, e: plane.e, n: plane.n, u: plane.u, monitor: monitor)
        case .incidents:
            aggregation = options.aggregation
            valueField = options.aggregation.countField
            switch options.aggregation {
            case .collectEvents:
                let groups = try CoincidentGroups(x: input.x, y: input.y, e: plane.e, n: plane.n, monitor: monitor)
                let first = groups.firstMember.map { Int($0) }
                featureX = first.map { input.x[$0] }
                featureY = first.map { input.y[$0] }
                values = groups.size.map { Double($0) }
                records = first.map { input.recordNumbers[$0] }
                what = "distinct incident locations"
                sites = Sites(distinctE: first.map { plane.e[$0] }, n: first.map { plane.n[$0] },
                              u: plane.u.isEmpty ? [] : first.map { plane.u[$0] })
            case .fishnet(let requested):
                let bounds = PlaneBounds(e: plane.e, n: plane.n)
                let size: Double, reason: String
                if let requested {
                    (size, reason) = (requested, "given")
                } else {
                    let groups = try CoincidentGroups(x: input.x, y: input.y, e: plane.e, n: plane.n, monitor: monitor)
                    guard groups.count >= 2 else { throw HotSpotError.coincidentLocations(count: input.count) }
                    let first = groups.firstMember.map { Int($0) }
                    let distinct = Sites(distinctE: first.map { plane.e[$0] }, n: first.map { plane.n[$0] },
                                         u: plane.u.isEmpty ? [] : first.map { plane.u[$0] })
                    let nearest = try NearestNeighbors.kthDistances(sites: distinct, k: 1, monitor: monitor) { report(0.08 * $0, .aggregating) }
                    let facts = LocationalOutliers(siteDistances: nearest, multiplicity: distinct.multiplicity)
                    (size, reason) = Fishnet.defaultCellSize(mean: facts.nonZeroMean, median: facts.nonZeroMedian)
                }
                let net = try Fishnet(bounds: bounds, cellSize: size, reason: reason)
                let counted = net.count(e: plane.e, n: plane.n)
                cells = counted.cells
                values = counted.counts.map { Double($0) }
                var centreE = [Double](), centreN = [Double]()
                featureX = []
                featureY = []
                centreE.reserveCapacity(cells.count)
                centreN.reserveCapacity(cells.count)
                for cell in cells {
                    let centre = net.centre(column: Int(cell.column), row: Int(cell.row))
                    centreE.append(centre.e)
                    centreN.append(centre.n)
                    let p = frame.unproject(e: centre.e, n: centre.n) ?? (x: Double.nan, y: Double.nan)
                    featureX.append(p.x)
                    featureY.append(p.y)
                }
                records = [Int32](repeating: -1, count: cells.count)
                what = "fishnet cells with incidents"
                fishnet = net
                sites = Sites(distinctE: centreE, n: centreN, u: [])
            }
        }
        report(0.1, .indexing)

        // 2. Enough features, varying values.
        let n = values.count
        if n < options.minimumFeatures {
            guard options.force, n >= HotSpotOptions.absoluteMinimumFeatures else {
                throw HotSpotError.tooFewFeatures(count: n, minimum: options.force ? HotSpotOptions.absoluteMinimumFeatures : options.minimumFeatures, what: what)
            }
            forced = true
        } else if n < HotSpotOptions.absoluteMinimumFeatures {
            throw HotSpotError.tooFewFeatures(count: n, minimum: HotSpotOptions.absoluteMinimumFeatures, what: what)
        }
        var mean = 0.0
        for v in values { mean += v }
        mean /= Double(n)
        var squares = 0.0
        for v in values { squares += (v - mean) * (v - mean) }
        let variance = squares / Double(n)
        guard variance > HotSpotAnalysis.minimumVariance else { throw HotSpotError.zeroVariance(variance: variance) }
        let standardDeviation = variance.squareRoot()

        // 3. The distance band.
        let extent = sites.bounds.maximumExtent
        let decision: DistanceBandDecision
        if let band = options.distanceBand {
            guard band <= extent else { throw HotSpotError.bandExceedsExtent(band: band, extent: extent) }
            decision = DistanceBandDecision(band: band, choice: .given, reason: "given", raisedToMinimum: false,
                                            steps: [], locationalOutliers: 0)
        } else {
            guard sites.count >= 2 else { throw HotSpotError.coincidentLocations(count: n) }
            decision = try DistanceBandSelection.choose(sites: sites, values: values, monitor: monitor) {
                report(0.1 + 0.55 * $0, .choosingDistanceBand)
            }
        }
        report(0.65, .indexing)

        // 4. Gi*, p, bins.
        let grid = SiteGrid(sites: sites, cellSize: decision.band / 2)
        report(0.66, .computingGiStar)
        var siteSums = [Double](repeating: 0, count: sites.count)
        for i in 0..<n { siteSums[Int(sites.siteOfFeature[i])] += values[i] - mean }
        let sums = try GiStar.bandSums(grid: grid, siteDeviationSums: siteSums, band: decision.band, monitor: monitor) {
            report(0.66 + 0.29 * $0, .computingGiStar)
        }
        var zScores = [Double](repeating: .nan, count: n)
        var pValues = [Double](repeating: .nan, count: n)
        var neighbors = [Int32](repeating: 0, count: n)
        var withoutNeighbors = 0
        for i in 0..<n {
            let s = Int(sites.siteOfFeature[i])
            neighbors[i] = Int32(truncatingIfNeeded: Int(sums.count[s]) - 1)
            if let z = GiStar.zScore(count: sums.count[s], deviationSum: sums.deviationSum[s], n: Double(n),
                                     standardDeviation: standardDeviation) {
                zScores[i] = z
                pValues[i] = NormalDistribution.twoSidedP(z)
            } else if sums.count[s] <= 1 {
                withoutNeighbors += 1
            }
        }
        report(0.95, .assigningBins)
        let bins = SignificanceBins.bins(zScores: zScores, pValues: pValues, fdr: options.fdr)
        var binCounts = HotSpotBinCounts()
        var features: [HotSpotFeature] = []
        features.reserveCapacity(n)
        for i in 0..<n {
            binCounts[Int(bins[i])] += 1
            features.append(HotSpotFeature(
                x: featureX[i], y: featureY[i], value: values[i],
                zScore: zScores[i].isNaN ? nil : zScores[i], pValue: pValues[i].isNaN ? nil : pValues[i],
                bin: bins[i], neighborCount: neighbors[i], recordNumber: records[i],
                column: cells.isEmpty ? -1 : cells[i].column, row: cells.isEmpty ? -1 : cells[i].row))
        }
        let summary = HotSpotSummary(
            kind: input.kind, coordinates: input.coordinates, recordCount: input.recordCount, keptCount: input.count,
            excluded: input.excluded, aggregation: aggregation, featureCount: n, locationCount: sites.count,
            mean: mean, standardDeviation: standardDeviation, distanceBand: decision,
            linearUnit: input.coordinates == .geographic ? "metres" : nil, fdr: options.fdr, bins: binCounts,
            withoutNeighbors: withoutNeighbors, forced: forced)
        report(1, .assigningBins)
        return HotSpotResult(features: features, summary: summary, fishnet: fishnet, valueField: valueField, frame: frame)
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
