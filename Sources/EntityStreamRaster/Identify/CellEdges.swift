/// The edges of an axis-aligned raster's cells in its CRS, each computed
/// once: ``GeoTransform/cellBounds(column:row:)`` finds an edge exactly
/// where identify's inverse geotransform puts it, which for a geotransform
/// not exact in binary is a search of a few ulps and a shortest-decimal
/// rounding (microseconds), the same for every cell of that column or row.
/// So the `width + 1` column edges and `height + 1` row edges are kept as
/// they are first needed; a cell's bounds are then four reads and answer
/// exactly what ``GeoTransform/cellBounds(column:row:)`` answers.
///
/// Not thread-safe: owned by one raster and used by its thread (see
/// ``GeoTIFFRaster``). Allocated on first use: 8 bytes an edge.
final class CellEdges {
    private let geoTransform: GeoTransform
    private let width: Int
    private let height: Int
    /// Column edges 0...width, then row edges 0...height; NaN until computed.
    private var edges: UnsafeMutablePointer<Double>?

    /// Nil for a rotated or sheared transform (its cells have no such edges).
    init?(_ geoTransform: GeoTransform, width: Int, height: Int) {
        guard geoTransform.isAxisAligned, width > 0, height > 0 else { return nil }
        self.geoTransform = geoTransform
        self.width = width
        self.height = height
    }

    deinit { edges?.deallocate() }

    /// The bounds of cell (`column`, `row`) (``GeoTransform/cellBounds(column:row:)``
    /// itself, not kept, for a cell outside the raster).
    @inline(__always) func bounds(column: Int, row: Int) -> (xmin: Double, xmax: Double, ymin: Double, ymax: Double) {
        guard column >= 0, row >= 0, column < width, row < height else {
            // Never nil: the transform is axis-aligned (init).
            return geoTransform.cellBounds(column: column, row: row)!
        }
        let edges = self.edges ?? allocate()
        let top = width + 1 + row
        return GeoTransform.bounds(left: edge(edges, column) { geoTransform.columnEdge(column) },
                                   right: edge(edges, column + 1) { geoTransform.columnEdge(column + 1) },
                                   top: edge(edges, top) { geoTransform.rowEdge(row) },
                                   bottom: edge(edges, top + 1) { geoTransform.rowEdge(row + 1) })
    }

    @inline(__always) private func edge(_ edges: UnsafeMutablePointer<Double>, _ index: Int, _ compute: () -> Double) -> Double {
        let held = edges[index]
        if !held.isNaN { return held }
        let computed = compute()
        edges[index] = computed
        return computed
    }

    private func allocate() -> UnsafeMutablePointer<Double> {
        let count = width + 1 + height + 1
        let made = UnsafeMutablePointer<Double>.allocate(capacity: count)
        made.initialize(repeating: .nan, count: count)
        edges = made
        return made
    }
}
