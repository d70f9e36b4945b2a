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
/// ``pixel(x:y:)`` is the exact inverse for axis-aligned transforms
/// (subtract the origin, then divide), so a point on a cell's left or top
/// edge maps to that cell's whole column/row; rotated or sheared transforms
/// use the general 2×2 inverse. Pure value type; `Sendable`.
public struct GeoTransform: Sendable, Hashable {
    private let c0, c1, c2, c3, c4, c5: Double
    private let determinant: Double
    /// c[2] == 0 && c[4] == 0.
    public let isAxisAligned: Bool

    /// A transform from GDAL's six coefficients. Nil unless there are six
    /// finite coefficients and the matrix is invertible (nonzero determinant).
    public init?(_ coefficients: [Double]) {
        guard coefficients.count == 6, coefficients.allSatisfy(\.isFinite) else { return nil }
        let determinant = coefficients[1] * coefficients[5] - coefficients[2] * coefficients[4]
        guard determinant != 0, determinant.isFinite else { return nil }
        (c0, c1, c2, c3, c4, c5) = (coefficients[0], coefficients[1], coefficients[2], coefficients[3], coefficients[4], coefficients[5])
        self.determinant = determinant
        self.isAxisAligned = coefficients[2] == 0 && coefficients[4] == 0
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

    /// Fractional pixel coordinates of (`x`, `y`): the cell is
    /// (floor(column), floor(row)). Non-finite input gives non-finite output.
    @inline(__always) public func pixel(x: Double, y: Double) -> (column: Double, row: Double) {
        let dx = x - c0
        let dy = y - c3
        if isAxisAligned { return (dx / c1, dy / c5) }
        return ((c5 * dx - c2 * dy) / determinant, (c1 * dy - c4 * dx) / determinant)
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
