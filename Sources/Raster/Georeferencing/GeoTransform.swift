import Foundation

/// GDAL's 6-term affine geotransform from pixel/line space to the raster's
/// CRS, and its inverse.
///
///     x = c[0] + column·c[1] + row·c[2]
///     y = c[3] + column·c[4] + row·c[5]
///
/// (column, row) = (0, 0) is the top-left CORNER of the top-left cell
/// (PixelIsArea convention; PixelIsPoint files are shifted to it when read).
/// North-up rasters have c[2] = c[4] = 0 and c[5] < 0; south-up ones c[5] > 0.
///
/// ``pixel(x:y:)`` is GDAL's: the inverse geotransform's six coefficients,
/// computed once as `GDALInvGeoTransform` computes them (for axis-aligned
/// transforms `-c0/c1`, `1/c1`, `-c3/c5`, `1/c5`; otherwise the adjoint over
/// the determinant), then `i0 + i1·x + i2·y`, evaluated in that order. The
/// cell is the floor, as `gdallocationinfo` takes it, so a point on an exact
/// cell edge (0.05° pixels, whose size is not exact in binary) lands in the
/// cell GDAL names, and a point on the right or bottom edge of the raster
/// is off it exactly when GDAL says so. Pure value type; `Sendable`.
public struct GeoTransform: Sendable, Hashable {
    private let c0, c1, c2, c3, c4, c5: Double
    /// The inverse coefficients (GDAL's `GDALInvGeoTransform`).
    private let i0, i1, i2, i3, i4, i5: Double
    /// c[2] == 0 && c[4] == 0.
    public let isAxisAligned: Bool

    /// A transform from GDAL's six coefficients. Nil unless there are six
    /// finite coefficients and the matrix is invertible (nonzero determinant).
    public init?(_ coefficients: [Double]) {
        guard coefficients.count == 6, coefficients.allSatisfy(\.isFinite) else { return nil }
        let determinant = coefficients[1] * coefficients[5] - coefficients[2] * coefficients[4]
        guard determinant != 0, determinant.isFinite else { return nil }
        (c0, c1, c2, c3, c4, c5) = (coefficients[0], coefficients[1], coefficients[2], coefficients[3], coefficients[4], coefficients[5])
        self.isAxisAligned = coefficients[2] == 0 && coefficients[4] == 0
        if isAxisAligned {
            (i0, i1, i2) = (-c0 / c1, 1.0 / c1, 0)
            (i3, i4, i5) = (-c3 / c5, 0, 1.0 / c5)
        } else {
            let inverse = 1.0 / determinant
            (i1, i4) = (c5 * inverse, -c4 * inverse)
            (i2, i5) = (-c2 * inverse, c1 * inverse)
            i0 = (c2 * c3 - c0 * c5) * inverse
            i3 = (-c1 * c3 + c0 * c4) * inverse
        }
    }

    /// The six coefficients in GDAL's order.
    public var coefficients: [Double] { [c0, c1, c2, c3, c4, c5] }

    /// A north-up transform: top-left corner (`originX`, `originY`), cells
    /// `cellWidth` wide and `cellHeight` tall (both positive; y decreases
    /// downwards). Nil for non-finite or zero sizes.
    public init?(originX: Double, originY: Double, cellWidth: Double, cellHeight: Double) {
        self.init([originX, cellWidth, 0, originY, 0, -cellHeight])
    }

    /// The point in the raster's CRS at pixel coordinates (`column`, `row`)
    /// (fractional values allowed: a cell's centre is +0.5).
    public func point(column: Double, row: Double) -> (x: Double, y: Double) {
        (c0 + column * c1 + row * c2, c3 + column * c4 + row * c5)
    }

    /// Fractional pixel coordinates of (`x`, `y`) by GDAL's inverse
    /// geotransform: the cell is (floor(column), floor(row)). Non-finite
    /// input gives non-finite output.
    @inline(__always) public func pixel(x: Double, y: Double) -> (column: Double, row: Double) {
        if isAxisAligned { return (i0 + i1 * x, i3 + i5 * y) }
        return (i0 + i1 * x + i2 * y, i3 + i4 * x + i5 * y)
    }

    /// The edges of cell (`column`, `row`) of an axis-aligned transform, in
    /// the raster's CRS, as ``pixel(x:y:)`` assigns points: the cell holds a
    /// point exactly when `xmin ≤ x < xmax` and `ymin < y ≤ ymax` (north-up;
    /// the sides swap for other orientations), so a printed extent never
    /// contradicts the answer, even where rounding in the inverse moves an
    /// edge an ulp away from the forward corner (pixel sizes such as 0.05°
    /// that are not exact in binary). Each edge is the forward corner when
    /// that is the boundary (the usual case), else the boundary found from
    /// it, written as the decimal with the fewest digits between the
    /// boundary and the corner (so a 10 m grid still reads 110, not
    /// 109.99999999999999, and a 0.05° grid 0.95). Nil for rotated or sheared transforms.
    public func cellBounds(column: Int, row: Int) -> (xmin: Double, xmax: Double, ymin: Double, ymax: Double)? {
        guard isAxisAligned else { return nil }
        return Self.bounds(left: columnEdge(column), right: columnEdge(column + 1), top: rowEdge(row), bottom: rowEdge(row + 1))
    }

    /// The x of the edge before column `column` (column `width` is the
    /// raster's right edge) of an axis-aligned transform, as
    /// ``cellBounds(column:row:)`` takes it: a function of the column alone,
    /// so a caller may compute each edge once.
    public func columnEdge(_ column: Int) -> Double {
        Self.edge(i0, i1, Double(column), corner: c0 + Double(column) * c1, span: abs(c1) / 4)
    }

    /// The y of the edge above row `row` of an axis-aligned transform (see ``columnEdge(_:)``).
    public func rowEdge(_ row: Int) -> Double {
        Self.edge(i3, i5, Double(row), corner: c3 + Double(row) * c5, span: abs(c5) / 4)
    }

    /// The cell between two column edges and two row edges, as ``cellBounds(column:row:)`` answers it.
    @inline(__always)
    public static func bounds(left: Double, right: Double, top: Double, bottom: Double) -> (xmin: Double, xmax: Double, ymin: Double, ymax: Double) {
        (min(left, right), max(left, right), min(top, bottom), max(top, bottom))
    }

    /// The boundary where `offset + scale·v` reaches `index` (for a positive
    /// scale the smallest v with `offset + scale·v ≥ index`, for a negative
    /// one the largest), starting from the forward `corner`: the corner when
    /// it is the boundary; else the boundary found by a few ulp steps (or
    /// bisection on the doubles' order within `corner ± span`), written as the
    /// decimal with the fewest digits between it and the corner.
    static func edge(_ offset: Double, _ scale: Double, _ index: Double, corner: Double, span: Double) -> Double {
        guard corner.isFinite, span.isFinite, span > 0, scale != 0 else { return corner }
        let increasing = scale > 0
        func reached(_ v: Double) -> Bool { offset + scale * v >= index }
        // Towards the side where the index is reached, and away from it.
        func inward(_ v: Double) -> Double { increasing ? v.nextUp : v.nextDown }
        func outward(_ v: Double) -> Double { increasing ? v.nextDown : v.nextUp }
        if reached(corner) && !reached(outward(corner)) { return corner }
        var boundary: Double?
        var probe = corner
        for _ in 0..<8 {
            if reached(probe) {
                if !reached(outward(probe)) { boundary = probe; break }
                probe = outward(probe)
            } else {
                probe = inward(probe)
            }
        }
        let found = boundary ?? bisect(reached, from: corner - span, to: corner + span, increasing: increasing) ?? corner
        // The shortest decimal between the boundary and the corner (all on the reached side, in the cell): what a
        // user types for that edge (0.95 for a corner computed as 0.9499999999999993) reads as the cell says.
        let (low, high) = increasing ? (found, max(found, corner)) : (min(found, corner), found)
        if low <= 0 && high >= 0 && reached(0) { return 0 }
        let magnitude = max(abs(low), abs(high))
        guard magnitude > 0, magnitude.isFinite else { return found }
        let exponent = Int(log10(magnitude).rounded(.down))
        for digits in 1...17 {
            let power = digits - 1 - exponent
            guard abs(power) <= 22 else { continue }   // exact powers of ten only
            let scale = pow(10, Double(abs(power)))
            let candidate = power >= 0 ? (low * scale).rounded(.up) / scale : (low / scale).rounded(.up) * scale
            if candidate >= low && candidate <= high && reached(candidate) { return candidate }
        }
        return found
    }

    /// Bisection on the doubles' order (at most 64 steps) for the boundary of
    /// `reached` in [low, high]; nil when it is not bracketed there.
    private static func bisect(_ reached: (Double) -> Bool, from low: Double, to high: Double, increasing: Bool) -> Double? {
        func key(_ x: Double) -> Int64 {
            let bits = Int64(bitPattern: x.bitPattern)
            return bits >= 0 ? bits : -(bits & Int64.max)
        }
        func value(_ k: Int64) -> Double {
            k >= 0 ? Double(bitPattern: UInt64(k)) : Double(bitPattern: UInt64(-k) | (1 << 63))
        }
        var a = key(low), b = key(high)
        // Increasing: not reached at a, reached at b; decreasing: the reverse.
        guard a < b, reached(value(a)) != increasing, reached(value(b)) == increasing else { return nil }
        // The keys of a bracket across zero are about ±2⁶² apart each: count the distance in UInt64.
        func distance() -> UInt64 { UInt64(bitPattern: b &- a) }
        while distance() > 1 {
            let middle = a &+ Int64(bitPattern: distance() / 2)
            if reached(value(middle)) == increasing { b = middle } else { a = middle }
        }
        return value(increasing ? b : a)
    }

    /// The four corners of cell (`column`, `row`) in the raster's CRS:
    /// top-left, top-right, bottom-right, bottom-left (in pixel terms).
    public func corners(column: Int, row: Int) -> [(x: Double, y: Double)] {
        let left = Double(column), top = Double(row)
        return [point(column: left, row: top), point(column: left + 1, row: top),
                point(column: left + 1, row: top + 1), point(column: left, row: top + 1)]
    }

    /// The same transform shifted by (`columns`, `rows`) pixels: the new
    /// (0, 0) is the old (`columns`, `rows`).
    public func shifted(columns: Double, rows: Double) -> GeoTransform? {
        let origin = point(column: columns, row: rows)
        return GeoTransform([origin.x, c1, c2, origin.y, c4, c5])
    }
}
