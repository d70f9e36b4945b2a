import EntityStreamCore
import EntityStreamModel

/// A rectangular street lattice inside an envelope, Salt Lake style:
/// north–south streets at evenly spaced longitudes and east–west streets at
/// evenly spaced latitudes, every street running from the first to the last
/// cross street (so every street end is an intersection).
///
/// The lattice is centred in the envelope and lies entirely inside it. There
/// are always at least two streets each way; if the envelope is narrower than
/// one spacing the two streets sit on its edges. At most 100 000 streets each
/// way (the spacing widens if more would be needed). A value type; any input
/// is accepted (a non-finite or non-positive spacing falls back to the
/// default; a non-finite envelope gives a grid on which nothing is on a street).
public struct StreetGrid: Sendable, Hashable {
    /// Default spacing of north–south streets, degrees of longitude (≈ 845 m at 40.6° N).
    public static let defaultLongitudeSpacing = 0.01
    /// Default spacing of east–west streets, degrees of latitude (≈ 834 m).
    public static let defaultLatitudeSpacing = 0.0075

    /// The envelope the grid was built for.
    public let envelope: Envelope
    /// Longitudes of the north–south streets, ascending (index = street number).
    public let northSouthStreets: [Double]
    /// Latitudes of the east–west streets, ascending.
    public let eastWestStreets: [Double]
    /// Actual spacing between north–south streets (degrees of longitude).
    public let longitudeSpacing: Double
    /// Actual spacing between east–west streets (degrees of latitude).
    public let latitudeSpacing: Double
    /// Metres per degree of longitude along each east–west street (same indices).
    let metersPerDegreeLongitude: [Double]

    public init(envelope: Envelope,
                longitudeSpacing: Double = StreetGrid.defaultLongitudeSpacing,
                latitudeSpacing: Double = StreetGrid.defaultLatitudeSpacing) {
        self.envelope = envelope
        let xs = Self.lines(from: envelope.xmin, to: envelope.xmax, spacing: longitudeSpacing,
                            fallback: Self.defaultLongitudeSpacing)
        let ys = Self.lines(from: envelope.ymin, to: envelope.ymax, spacing: latitudeSpacing,
                            fallback: Self.defaultLatitudeSpacing)
        northSouthStreets = xs.lines
        eastWestStreets = ys.lines
        self.longitudeSpacing = xs.spacing
        self.latitudeSpacing = ys.spacing
        metersPerDegreeLongitude = ys.lines.map { GroundDistance.metersPerDegreeLongitude(atLatitude: $0) }
    }

    /// The envelope of the streets themselves (first to last street each way).
    public var extent: Envelope {
        Envelope(xmin: northSouthStreets[0], ymin: eastWestStreets[0],
                 xmax: northSouthStreets[northSouthStreets.count - 1],
                 ymax: eastWestStreets[eastWestStreets.count - 1], wkid: envelope.wkid)
    }

    /// True when `point` lies on some street: within the lattice's extent (± tolerance)
    /// and within `tolerance` degrees of a north–south or an east–west street.
    public func isOnStreet(_ point: Point, tolerance: Double = 1e-9) -> Bool {
        isOnNorthSouthStreet(point, tolerance: tolerance) || isOnEastWestStreet(point, tolerance: tolerance)
    }

    /// True when `point` lies on a north–south street (its longitude is a street's, its
    /// latitude within the street's length), within `tolerance` degrees.
    public func isOnNorthSouthStreet(_ point: Point, tolerance: Double = 1e-9) -> Bool {
        guard withinExtent(point, tolerance: tolerance) else { return false }
        return Self.distanceToNearest(point.x, in: northSouthStreets) <= tolerance
    }

    /// True when `point` lies on an east–west street, within `tolerance` degrees.
    public func isOnEastWestStreet(_ point: Point, tolerance: Double = 1e-9) -> Bool {
        guard withinExtent(point, tolerance: tolerance) else { return false }
        return Self.distanceToNearest(point.y, in: eastWestStreets) <= tolerance
    }

    private func withinExtent(_ point: Point, tolerance: Double) -> Bool {
        let e = extent
        return point.x >= e.xmin - tolerance && point.x <= e.xmax + tolerance
            && point.y >= e.ymin - tolerance && point.y <= e.ymax + tolerance
    }

    /// Distance from `value` to the nearest entry of the ascending, evenly spaced `lines`
    /// (infinity for NaN).
    private static func distanceToNearest(_ value: Double, in lines: [Double]) -> Double {
        guard value.isFinite, let first = lines.first, let last = lines.last else { return .infinity }
        let spacing = lines.count > 1 ? (last - first) / Double(lines.count - 1) : 1
        let guess = spacing > 0 ? ((value - first) / spacing).rounded() : 0
        let center = Int(min(max(guess, 0), Double(lines.count - 1)))
        var best = Double.infinity
        for index in max(0, center - 1)...min(lines.count - 1, center + 1) {
            best = min(best, abs(lines[index] - value))
        }
        return best
    }

    /// Evenly spaced, centred lines covering [low, high]: at least two, at most 100 000.
    private static func lines(from low: Double, to high: Double, spacing: Double,
                              fallback: Double) -> (lines: [Double], spacing: Double) {
        let lo = min(low, high), hi = max(low, high)
        guard lo.isFinite, hi.isFinite else { return ([lo, hi], 0) }
        let width = hi - lo
        var step = spacing.isFinite && spacing > 0 ? spacing : fallback
        guard width >= step else { return ([lo, hi], width) }
        let maximumLines = 100_000
        let ratio = (width / step).rounded(.down)
        let intervals: Int
        if ratio.isFinite, ratio < Double(maximumLines) {
            intervals = Int(ratio)
        } else {
            intervals = maximumLines - 1
            step = width / Double(intervals)
        }
        let origin = lo + (width - Double(intervals) * step) / 2
        let lines = (0...intervals).map { min(max(origin + Double($0) * step, lo), hi) }
        return (lines, step)
    }
}
