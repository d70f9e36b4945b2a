import EntityStreamCore
import EntityStreamModel

/// Why a hot-spot analysis refused to run. Each case names what was wrong;
/// ``description`` is a sentence fit for a user. (Cancellation is reported
/// separately, as `CancellationError`.)
public enum HotSpotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An option is out of range (`name`, the offending value as text, why).
    case invalidOption(name: String, value: String, reason: String)
    /// Fewer analysed features than required (`what` says which: features,
    /// fishnet cells, locations).
    case tooFewFeatures(count: Int, minimum: Int, what: String)
    /// Fewer incidents than required.
    case tooFewIncidents(count: Int, minimum: Int)
    /// Too few records left because `excluded` had coordinates outside
    /// WGS84's range (the first at `example`): projected coordinates read as
    /// WGS84 (`swapped` false) or latitude and longitude exchanged (true).
    case coordinatesOutsideWGS84(kept: Int, minimum: Int, excluded: Int, example: Point, swapped: Bool)
    /// The analysed values do not vary (population variance ≤ 1e-12).
    case zeroVariance(variance: Double)
    /// Every feature is at the same location: no distance can be measured.
    case coincidentLocations(count: Int)
    /// The given distance band exceeds the data's extent (ArcGIS refuses this too).
    case bandExceedsExtent(band: Double, extent: Double)
    /// Geographic input spreads too far for the local measurement frame.
    case geographicSpanTooLarge(degreesFromCentre: Double, limit: Double)
    /// A fishnet would need more rows or columns than the engine indexes.
    case fishnetTooLarge(columns: Double, rows: Double, limit: Int)

    public var description: String {
        switch self {
        case .invalidOption(let name, let value, let reason):
            return "invalid \(name) \(value): \(reason)"
        case .tooFewFeatures(let count, let minimum, let what):
            return "hot spot analysis needs at least \(minimum) \(what); there are \(count) (pass force to analyse anyway)"
        case .tooFewIncidents(let count, let minimum):
            return "hot spot analysis of incidents needs at least \(minimum) incidents; there are \(count) (pass force to analyse anyway)"
        case .coordinatesOutsideWGS84(let kept, let minimum, let excluded, let example, let swapped):
            let cause = swapped
                ? "latitude and longitude look swapped: x must be the longitude (give the columns the other way round: --x LONGITUDE --y LATITUDE)"
                : "they look projected: give the data's spatial reference (--in-sr, e.g. 2913 for Oregon North State Plane in feet, 3857 for Web Mercator)"
            return "\(excluded) records were excluded because their coordinates are outside WGS84's range (longitude −180…180, latitude −90…90; the first is x \(example.x), y \(example.y)), leaving \(kept) of the \(minimum) needed: \(cause)"
        case .zeroVariance(let variance):
            return "the analysed values do not vary (variance \(variance) ≤ 1e-12): Gi* is undefined"
        case .coincidentLocations(let count):
            return "all \(count) features are at one location: no distance band can be chosen (give one)"
        case .bandExceedsExtent(let band, let extent):
            return "the distance band \(band) exceeds the extent of the data (\(extent)): every feature would be a neighbour of every other"
        case .geographicSpanTooLarge(let degrees, let limit):
            return "geographic points lie up to \(degrees)° from their centre (limit \(limit)°): project the data first"
        case .fishnetTooLarge(let columns, let rows, let limit):
            return "the fishnet would have \(columns) columns and \(rows) rows (limit \(limit) each): choose a larger cell size"
        }
    }
}
