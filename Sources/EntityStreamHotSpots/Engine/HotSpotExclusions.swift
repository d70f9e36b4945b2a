import EntityStreamCore
import EntityStreamModel

/// Counts of the records a ``HotSpotInput`` refused, by reason. Nothing is
/// dropped silently: every record offered is either kept or counted here.
public struct HotSpotExclusions: Sendable, Hashable {
    /// Records without an x or a y.
    public var noGeometry = 0
    /// Records whose x or y is not finite, or (geographic input) outside
    /// longitude −180…180 / latitude −90…90.
    public var invalidCoordinate = 0
    /// Weighted records without a value.
    public var missingValue = 0
    /// Weighted records whose value is NaN or infinite.
    public var invalidValue = 0
    /// Records beyond the input's ``HotSpotInput/maximumCount``.
    public var overLimit = 0
    /// Of ``invalidCoordinate``: finite coordinates of geographic input
    /// outside longitude −180…180 / latitude −90…90 (projected coordinates
    /// read as WGS84, or latitude and longitude swapped).
    public var outsideGeographicRange = 0
    /// Of those: records that would be in range with x and y exchanged.
    public var inRangeIfSwapped = 0
    /// The first such record's coordinates, to show the user.
    public var outsideExample: Point?

    public init() {}

    /// Every excluded record.
    public var total: Int { noGeometry &+ invalidCoordinate &+ missingValue &+ invalidValue &+ overLimit }

    /// The non-zero counts as `(reason, count)` pairs, in a fixed order, with
    /// the reasons spelled as in JSON output (`noGeometry`, …).
    public var nonZero: [(reason: String, count: Int)] {
        [("noGeometry", noGeometry), ("invalidCoordinate", invalidCoordinate), ("missingValue", missingValue),
         ("invalidValue", invalidValue), ("overLimit", overLimit)].filter { $0.1 > 0 }
    }
}
