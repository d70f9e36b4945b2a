import EntityStreamCore
import EntityStreamModel

/// The points a hot-spot analysis reads, collected one record at a time.
///
/// Either **weighted** points (`x`, `y` and a numeric value, e.g. a count or a
/// speed) or **incidents** (`x`, `y` only, aggregated into counts by the
/// analysis; see ``HotSpotAggregation``). ``append(x:y:value:)`` keeps a
/// record or counts it in ``excluded`` by reason (missing geometry, invalid
/// coordinate, missing or non-finite value, over ``maximumCount``); it never
/// traps and never drops silently. Each kept record remembers its record
/// number (the 0-based position of its `append` call, excluded records
/// included), so results can be joined back to the caller's rows.
///
/// Memory: 28 bytes per kept weighted record (20 for incidents). A value
/// type; `Sendable`.
public struct HotSpotInput: Sendable {
    /// What the records are.
    public enum Kind: String, Sendable, Hashable {
        /// Points with a value to analyse.
        case weighted
        /// Points without a value: counted by cell or by location.
        case incidents
    }

    public let kind: Kind
    public let coordinates: HotSpotCoordinates
    /// Records kept beyond this many are counted as ``HotSpotExclusions/overLimit``.
    public let maximumCount: Int
    /// Kept x (or longitude), in record order.
    public private(set) var x: [Double] = []
    /// Kept y (or latitude), in record order.
    public private(set) var y: [Double] = []
    /// Kept values (weighted input only; empty for incidents).
    public private(set) var values: [Double] = []
    /// The record number of each kept record.
    public private(set) var recordNumbers: [Int32] = []
    /// Records refused so far, by reason.
    public private(set) var excluded = HotSpotExclusions()
    /// Records offered so far (kept + excluded).
    public private(set) var recordCount = 0

    /// The largest ``maximumCount`` allowed: record numbers must fit in 32 bits.
    public static let largestMaximumCount = Int(Int32.max)

    /// An empty input. `maximumCount` is clamped to 0…``largestMaximumCount``;
    /// `capacity` (clamped likewise) only reserves storage.
    public init(kind: Kind, coordinates: HotSpotCoordinates = .projected,
                maximumCount: Int = 50_000_000, capacity: Int = 0) {
        self.kind = kind
        self.coordinates = coordinates
        self.maximumCount = min(max(maximumCount, 0), HotSpotInput.largestMaximumCount)
        let reserve = min(max(capacity, 0), self.maximumCount)
        x.reserveCapacity(reserve)
        y.reserveCapacity(reserve)
        recordNumbers.reserveCapacity(reserve)
        if kind == .weighted { values.reserveCapacity(reserve) }
    }

    /// Number of kept records.
    public var count: Int { x.count }

    /// Offers one record. Returns true when it was kept, false when it was
    /// counted in ``excluded``. `value` is read only for weighted input.
    @discardableResult
    public mutating func append(x: Double?, y: Double?, value: Double? = nil) -> Bool {
        let number = recordCount
        recordCount &+= 1
        guard let x, let y else {
            excluded.noGeometry += 1
            return false
        }
        guard x.isFinite, y.isFinite else {
            excluded.invalidCoordinate += 1
            return false
        }
        if coordinates == .geographic, !(-180...180).contains(x) || !(-90...90).contains(y) {
            excluded.invalidCoordinate += 1
            excluded.outsideGeographicRange += 1
            if (-180...180).contains(y) && (-90...90).contains(x) { excluded.inRangeIfSwapped += 1 }
            if excluded.outsideExample == nil { excluded.outsideExample = Point(x: x, y: y) }
            return false
        }
        var kept = 0.0
        if kind == .weighted {
            guard let value else {
                excluded.missingValue += 1
                return false
            }
            guard value.isFinite else {
                excluded.invalidValue += 1
                return false
            }
            kept = value
        }
        guard self.x.count < maximumCount, let recordNumber = Int32(exactly: number) else {
            excluded.overLimit += 1
            return false
        }
        // −0 and +0 are one location.
        self.x.append(x + 0)
        self.y.append(y + 0)
        if kind == .weighted { values.append(kept) }
        recordNumbers.append(recordNumber)
        return true
    }
}
