import EntityStreamCore
import EntityStreamModel

/// A hot-spot result's summary as JSON members (the `summary` line of the
/// `hotspots` command) and as ArcGIS-style job messages (what the
/// simulator's GPServer reports). Pure functions.
///
/// Members: `n` (features analysed), `input` {kind, records, kept,
/// coordinates, linearUnit}, `excluded` {total, and each non-zero reason},
/// `aggregation` {method, countField, cellSize, cellSizeReason, columns,
/// rows} (null for weighted input), `locations`, `mean`,
/// `standardDeviation`, `distanceBand` {value, choice, reason, zScore or
/// k, raisedToMinimum, locationalOutliers, steps [{distance, zScore}]},
/// `fdr`, `bins` {"-3"…"3"}, `hotSpots`, `coldSpots`, `withoutNeighbors`,
/// `forced`. Non-finite numbers are written as null.
public enum HotSpotSummaryJSON {
    public static func members(_ result: HotSpotResult) -> JSONObject {
        members(result.summary, fishnet: result.fishnet)
    }

    /// The members of an analysis's `summary` and the `fishnet` it aggregated into (fishnet aggregation only).
    public static func members(_ summary: HotSpotSummary, fishnet: Fishnet?) -> JSONObject {
        var members = JSONObject()
        members.append(key: "n", value: .int(Int64(summary.featureCount)))
        var input = JSONObject([("kind", .string(summary.kind.rawValue)), ("records", .int(Int64(summary.recordCount))),
                                ("kept", .int(Int64(summary.keptCount))), ("coordinates", .string(summary.coordinates.rawValue))])
        if let unit = summary.linearUnit { input.append(key: "linearUnit", value: .string(unit)) }
        members.append(key: "input", value: .object(input))
        var excluded = JSONObject([("total", .int(Int64(summary.excluded.total)))])
        for (reason, count) in summary.excluded.nonZero { excluded.append(key: reason, value: .int(Int64(count))) }
        members.append(key: "excluded", value: .object(excluded))
        members.append(key: "aggregation", value: aggregation(summary, fishnet: fishnet))
        members.append(key: "locations", value: .int(Int64(summary.locationCount)))
        members.append(key: "mean", value: number(summary.mean))
        members.append(key: "standardDeviation", value: number(summary.standardDeviation))
        members.append(key: "distanceBand", value: band(summary.distanceBand))
        members.append(key: "fdr", value: .bool(summary.fdr))
        append(bins: summary.bins, to: &members)
        members.append(key: "withoutNeighbors", value: .int(Int64(summary.withoutNeighbors)))
        members.append(key: "forced", value: .bool(summary.forced))
        return members
    }

    /// `"bins":{"-3":…,…,"3":…}`, `"hotSpots"` and `"coldSpots"`: the features per bin.
    public static func append(bins: HotSpotBinCounts, to members: inout JSONObject) {
        var counts = JSONObject()
        for bin in -3...3 { counts.append(key: String(bin), value: .int(Int64(bins[bin]))) }
        members.append(key: "bins", value: .object(counts))
        members.append(key: "hotSpots", value: .int(Int64(bins.hot)))
        members.append(key: "coldSpots", value: .int(Int64(bins.cold)))
    }

    /// Informative lines in the manner of ArcGIS's Optimized Hot Spot
    /// Analysis messages: what was analysed, the scale and why, the bins.
    /// `unit` names the linear unit ("feet", "metres", …).
    public static func messages(_ result: HotSpotResult, unit: String) -> [String] {
        let summary = result.summary
        var lines: [String] = []
        lines.append("Initial data assessment: \(summary.recordCount) records, \(summary.keptCount) valid \(summary.kind == .incidents ? "incidents" : "features")" +
                     (summary.excluded.total > 0 ? " (\(summary.excluded.total) excluded: " + summary.excluded.nonZero.map { "\($0.count) \($0.reason)" }.joined(separator: ", ") + ")" : "") + ".")
        if let fishnet = result.fishnet {
            lines.append("Incident aggregation: fishnet cells of \(format(fishnet.cellSize)) \(unit) (\(fishnet.cellSizeReason)); \(summary.featureCount) cells contain incidents (JOIN_COUNT).")
        } else if summary.aggregation == .collectEvents {
            lines.append("Incident aggregation: \(summary.featureCount) distinct locations (Collect Events, ICOUNT).")
        }
        let band = summary.distanceBand
        lines.append("Scale of analysis: \(format(band.band)) \(unit) (\(band.reason))" + (band.raisedToMinimum ? ", raised to 0.1 % of the extent." : "."))
        lines.append("Hot spot analysis: Gi* over \(summary.featureCount) features, \(summary.fdr ? "with" : "without") False Discovery Rate correction.")
        lines.append("Output: \(summary.bins.hot) hot spots and \(summary.bins.cold) cold spots (bins -3…3: \(summary.bins.all.map(String.init).joined(separator: ", "))); \(summary.withoutNeighbors) features without neighbours.")
        if summary.forced { lines.append("WARNING: fewer features than the analysis needs; results forced.") }
        return lines
    }

    private static func aggregation(_ summary: HotSpotSummary, fishnet: Fishnet?) -> JSONValue {
        guard let aggregation = summary.aggregation else { return .null }
        var members = JSONObject()
        switch aggregation {
        case .fishnet: members.append(key: "method", value: .string("fishnet"))
        case .collectEvents: members.append(key: "method", value: .string("collectEvents"))
        }
        members.append(key: "countField", value: .string(aggregation.countField))
        if let fishnet {
            members.append(key: "cellSize", value: number(fishnet.cellSize))
            members.append(key: "cellSizeReason", value: .string(fishnet.cellSizeReason))
            members.append(key: "columns", value: .int(Int64(fishnet.columns)))
            members.append(key: "rows", value: .int(Int64(fishnet.rows)))
        }
        return .object(members)
    }

    private static func band(_ decision: DistanceBandDecision) -> JSONValue {
        var members = JSONObject([("value", number(decision.band)), ("choice", .string(decision.choice.name)),
                                  ("reason", .string(decision.reason))])
        switch decision.choice {
        case .firstPeak(let z), .maximumPeak(let z): members.append(key: "zScore", value: number(z))
        case .nearestNeighbors(let k, let capped):
            members.append(key: "k", value: .int(Int64(k)))
            members.append(key: "cappedAtStandardDistance", value: .bool(capped))
        case .given: break
        }
        members.append(key: "raisedToMinimum", value: .bool(decision.raisedToMinimum))
        members.append(key: "locationalOutliers", value: .int(Int64(decision.locationalOutliers)))
        if !decision.steps.isEmpty {
            members.append(key: "steps", value: .array(decision.steps.map {
                .object(JSONObject([("distance", number($0.distance)), ("zScore", number($0.zScore))]))
            }))
        }
        return .object(members)
    }

    private static func number(_ value: Double) -> JSONValue { value.isFinite ? .double(value) : .null }

    private static func format(_ value: Double) -> String { DistanceBandSelection.format(value) }
}
