/// The steps of ``HotSpotAnalysis/run(_:monitor:)``, each a pure function of
/// the input, the options and what the steps before it produced, so that
/// each rule can be read and tested on its own.

/// The features Gi* runs on: the weighted points as given, one per distinct
/// incident location (collect events), or one per fishnet cell holding incidents.
struct AnalysedFeatures {
    var x: [Double]
    var y: [Double]
    var values: [Double]
    /// The input record of each feature (-1 for a fishnet cell).
    var records: [Int32]
    /// Each feature's fishnet cell (empty unless aggregated to a fishnet).
    var cells: [(column: Int32, row: Int32)] = []
    var fishnet: Fishnet?
    var aggregation: HotSpotAggregation?
    /// The field the aggregation counted into, if any.
    var valueField: String?
    var sites: Sites
    /// What the features are, in words for errors ("features", "fishnet cells with incidents", …).
    var what: String
}

/// The values' mean and population standard deviation (variance above ``HotSpotAnalysis/minimumVariance``).
struct ValueMoments: Equatable {
    var mean: Double
    var standardDeviation: Double

    /// Throws ``HotSpotError/zeroVariance(variance:)`` for values that do not vary.
    init(_ values: [Double]) throws(HotSpotError) {
        let n = Double(values.count)
        var mean = 0.0
        for v in values { mean += v }
        mean /= n
        var squares = 0.0
        for v in values { squares += (v - mean) * (v - mean) }
        let variance = squares / n
        guard variance > HotSpotAnalysis.minimumVariance else { throw .zeroVariance(variance: variance) }
        self.mean = mean
        standardDeviation = variance.squareRoot()
    }
}

/// Gi* of every feature: z-score and two-sided p-value (NaN when a feature
/// has no score), neighbour count (the feature itself excluded), and how
/// many features had no neighbour within the band.
struct GiStarScores {
    var zScores: [Double]
    var pValues: [Double]
    var neighbors: [Int32]
    var withoutNeighbors: Int

    init(sites: Sites, values: [Double], moments: ValueMoments, band: Double, monitor: HotSpotMonitor,
         progress: (Double) -> Void) throws {
        let n = values.count
        let grid = SiteGrid(sites: sites, cellSize: band / 2)
        var siteSums = [Double](repeating: 0, count: sites.count)
        for i in 0..<n { siteSums[Int(sites.siteOfFeature[i])] += values[i] - moments.mean }
        let sums = try GiStar.bandSums(grid: grid, siteDeviationSums: siteSums, band: band, monitor: monitor, progress: progress)
        zScores = [Double](repeating: .nan, count: n)
        pValues = [Double](repeating: .nan, count: n)
        neighbors = [Int32](repeating: 0, count: n)
        withoutNeighbors = 0
        for i in 0..<n {
            let s = Int(sites.siteOfFeature[i])
            neighbors[i] = Int32(truncatingIfNeeded: Int(sums.count[s]) - 1)
            if let z = GiStar.zScore(count: sums.count[s], deviationSum: sums.deviationSum[s], n: Double(n),
                                     standardDeviation: moments.standardDeviation) {
                zScores[i] = z
                pValues[i] = NormalDistribution.twoSidedP(z)
            } else if sums.count[s] <= 1 {
                withoutNeighbors += 1
            }
        }
    }
}

extension HotSpotAnalysis {
    /// Step 1: refuses input too small to analyse before any work; true when
    /// it goes on only because it is forced. Too few points kept because
    /// others lay outside WGS84's range is named as that (with the hint that
    /// x and y look swapped when most would fit swapped).
    func checkInputSize(_ input: HotSpotInput) throws(HotSpotError) -> Bool {
        let excluded = input.excluded
        let minimum = input.kind == .incidents ? options.minimumIncidents : options.minimumFeatures
        if excluded.outsideGeographicRange > 0, input.count < minimum,
           !options.force || input.count < HotSpotOptions.absoluteMinimumFeatures, let example = excluded.outsideExample {
            throw .coordinatesOutsideWGS84(kept: input.count, minimum: minimum, excluded: excluded.outsideGeographicRange,
                                           example: example, swapped: excluded.inRangeIfSwapped * 2 > excluded.outsideGeographicRange)
        }
        if input.kind == .incidents, input.count < options.minimumIncidents {
            guard options.force else { throw .tooFewIncidents(count: input.count, minimum: options.minimumIncidents) }
            return true
        }
        return false
    }

    /// Step 2: the analysed features (``AnalysedFeatures``) in `frame`.
    func analysedFeatures(_ input: HotSpotInput, frame: PlanarFrame, monitor: HotSpotMonitor,
                          report: (Double, HotSpotMonitor.Stage) -> Void) throws -> AnalysedFeatures {
        let plane = frame.project(x: input.x, y: input.y)
        switch input.kind {
        case .weighted:
            report(0.02, .indexing)
            let sites = try Sites(x: input.x, y: input.y, e: plane.e, n: plane.n, u: plane.u, monitor: monitor)
            return AnalysedFeatures(x: input.x, y: input.y, values: input.values, records: input.recordNumbers,
                                    sites: sites, what: "features")
        case .incidents:
            switch options.aggregation {
            case .collectEvents:
                let groups = try CoincidentGroups(x: input.x, y: input.y, e: plane.e, n: plane.n, monitor: monitor)
                let first = groups.firstMember.map { Int($0) }
                return AnalysedFeatures(
                    x: first.map { input.x[$0] }, y: first.map { input.y[$0] }, values: groups.size.map { Double($0) },
                    records: first.map { input.recordNumbers[$0] }, aggregation: options.aggregation,
                    valueField: options.aggregation.countField,
                    sites: Sites(distinctE: first.map { plane.e[$0] }, n: first.map { plane.n[$0] },
                                 u: plane.u.isEmpty ? [] : first.map { plane.u[$0] }),
                    what: "distinct incident locations")
            case .fishnet(let requested):
                let net = try fishnet(input, plane: plane, requestedSize: requested, monitor: monitor) { report(0.08 * $0, .aggregating) }
                let counted = net.count(e: plane.e, n: plane.n)
                var centreE = [Double](), centreN = [Double]()
                var x = [Double](), y = [Double]()
                centreE.reserveCapacity(counted.cells.count)
                centreN.reserveCapacity(counted.cells.count)
                for cell in counted.cells {
                    let centre = net.centre(column: Int(cell.column), row: Int(cell.row))
                    centreE.append(centre.e)
                    centreN.append(centre.n)
                    let p = frame.unproject(e: centre.e, n: centre.n) ?? (x: Double.nan, y: Double.nan)
                    x.append(p.x)
                    y.append(p.y)
                }
                return AnalysedFeatures(
                    x: x, y: y, values: counted.counts.map { Double($0) },
                    records: [Int32](repeating: -1, count: counted.cells.count), cells: counted.cells, fishnet: net,
                    aggregation: options.aggregation, valueField: options.aggregation.countField,
                    sites: Sites(distinctE: centreE, n: centreN, u: []), what: "fishnet cells with incidents")
            }
        }
    }

    /// The fishnet over the incidents: the requested cell size, else ArcGIS's
    /// default from the distinct locations' nearest-neighbour distances.
    private func fishnet(_ input: HotSpotInput, plane: (e: [Double], n: [Double], u: [Double]), requestedSize: Double?,
                         monitor: HotSpotMonitor, progress: (Double) -> Void) throws -> Fishnet {
        let bounds = PlaneBounds(e: plane.e, n: plane.n)
        if let requestedSize { return try Fishnet(bounds: bounds, cellSize: requestedSize, reason: "given") }
        let groups = try CoincidentGroups(x: input.x, y: input.y, e: plane.e, n: plane.n, monitor: monitor)
        guard groups.count >= 2 else { throw HotSpotError.coincidentLocations(count: input.count) }
        let first = groups.firstMember.map { Int($0) }
        let distinct = Sites(distinctE: first.map { plane.e[$0] }, n: first.map { plane.n[$0] },
                             u: plane.u.isEmpty ? [] : first.map { plane.u[$0] })
        let nearest = try NearestNeighbors.kthDistances(sites: distinct, k: 1, monitor: monitor, progress: progress)
        let facts = LocationalOutliers(siteDistances: nearest, multiplicity: distinct.multiplicity)
        let (size, reason) = Fishnet.defaultCellSize(mean: facts.nonZeroMean, median: facts.nonZeroMedian)
        return try Fishnet(bounds: bounds, cellSize: size, reason: reason)
    }

    /// Step 3: refuses too few analysed features (`what` names them); true
    /// when it goes on only because it is forced (never below
    /// ``HotSpotOptions/absoluteMinimumFeatures``).
    func checkFeatureCount(_ n: Int, what: String) throws(HotSpotError) -> Bool {
        if n < options.minimumFeatures {
            guard options.force, n >= HotSpotOptions.absoluteMinimumFeatures else {
                throw .tooFewFeatures(count: n, minimum: options.force ? HotSpotOptions.absoluteMinimumFeatures : options.minimumFeatures, what: what)
            }
            return true
        }
        if n < HotSpotOptions.absoluteMinimumFeatures {
            throw .tooFewFeatures(count: n, minimum: HotSpotOptions.absoluteMinimumFeatures, what: what)
        }
        return false
    }

    /// Step 4 (after ``ValueMoments``): the given band (refused beyond the
    /// data's extent), else the chosen one (refused when every feature sits
    /// at one location).
    func distanceBand(sites: Sites, values: [Double], monitor: HotSpotMonitor,
                      progress: (Double) -> Void) throws -> DistanceBandDecision {
        if let band = options.distanceBand {
            let extent = sites.bounds.maximumExtent
            guard band <= extent else { throw HotSpotError.bandExceedsExtent(band: band, extent: extent) }
            return DistanceBandDecision(band: band, choice: .given, reason: "given", raisedToMinimum: false,
                                        steps: [], locationalOutliers: 0)
        }
        guard sites.count >= 2 else { throw HotSpotError.coincidentLocations(count: values.count) }
        return try DistanceBandSelection.choose(sites: sites, values: values, monitor: monitor, progress: progress)
    }

    /// Last step: bins (with or without FDR), the features and the summary.
    func assemble(_ input: HotSpotInput, features: AnalysedFeatures, moments: ValueMoments, decision: DistanceBandDecision,
                  scores: GiStarScores, frame: PlanarFrame, forced: Bool) -> HotSpotResult {
        let n = features.values.count
        let bins = SignificanceBins.bins(zScores: scores.zScores, pValues: scores.pValues, fdr: options.fdr)
        var binCounts = HotSpotBinCounts()
        var output: [HotSpotFeature] = []
        output.reserveCapacity(n)
        let cells = features.cells
        for i in 0..<n {
            let z = scores.zScores[i], p = scores.pValues[i]
            binCounts[Int(bins[i])] += 1
            output.append(HotSpotFeature(
                x: features.x[i], y: features.y[i], value: features.values[i],
                zScore: z.isNaN ? nil : z, pValue: p.isNaN ? nil : p,
                bin: bins[i], neighborCount: scores.neighbors[i], recordNumber: features.records[i],
                column: cells.isEmpty ? -1 : cells[i].column, row: cells.isEmpty ? -1 : cells[i].row))
        }
        let summary = HotSpotSummary(
            kind: input.kind, coordinates: input.coordinates, recordCount: input.recordCount, keptCount: input.count,
            excluded: input.excluded, aggregation: features.aggregation, featureCount: n, locationCount: features.sites.count,
            mean: moments.mean, standardDeviation: moments.standardDeviation, distanceBand: decision,
            linearUnit: input.coordinates == .geographic ? "metres" : nil, fdr: options.fdr, bins: binCounts,
            withoutNeighbors: scores.withoutNeighbors, forced: forced)
        return HotSpotResult(features: output, summary: summary, fishnet: features.fishnet, valueField: features.valueField, frame: frame)
    }
}
