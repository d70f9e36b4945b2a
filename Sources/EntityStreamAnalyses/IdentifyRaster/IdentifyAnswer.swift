import EntityStreamCore
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamModel

/// What identify answered for one point: the cell under it, no cell (the
/// point is outside the raster or on its right or bottom edge — a normal
/// answer), or why it could not be answered (a point that cannot be
/// transformed, a bad input line), or that the raster's data under it could
/// not be read (a truncated or corrupt tile: the file is at fault). A value type.
public enum IdentifyAnswer: Sendable, Hashable {
    case cell(RasterCell)
    /// No cell; `hint` says why when the point looks given in the wrong
    /// coordinates (longitude/latitude on a projected raster without a
    /// spatial reference, or latitude and longitude swapped).
    case noCell(hint: String?)
    case failed(String)
    /// The tile or strip holding the cell could not be read.
    case unreadable(String)

    /// The typed `result` for this answer to `point`, whose spatial
    /// reference is `wkid` (the point's, else the request's default, else
    /// the raster's EPSG code; nil when none is known), on a raster of
    /// `bands` bands (see ``IdentifyResult`` for the line it makes).
    ///
    /// For a cell, its values, column, row and extent, drawn as a polygon
    /// (clockwise ring from the lower-left corner) in the point's spatial
    /// reference; for no cell, the point itself; nothing drawn for a failure.
    public func result(for point: IdentifyPoint, wkid: Int?, bands: Int) -> IdentifyResult {
        let echoed = IdentifyResult.Point(x: point.x, y: point.y, wkid: wkid, id: point.id)
        switch self {
        case .cell(let cell):
            let extent = cell.extent
            typealias Corner = AnalysisGeometry.Coordinate
            let ring = [Corner(x: extent.xmin, y: extent.ymin), Corner(x: extent.xmin, y: extent.ymax), Corner(x: extent.xmax, y: extent.ymax),
                        Corner(x: extent.xmax, y: extent.ymin), Corner(x: extent.xmin, y: extent.ymin)]
            let answer = IdentifyResult.Cell(values: cell.sample.namedValues, column: cell.column, row: cell.row,
                                             xmin: extent.xmin, ymin: extent.ymin, xmax: extent.xmax, ymax: extent.ymax)
            return IdentifyResult(line: point.line, point: echoed, answer: .cell(answer),
                                  geometry: .polygon(rings: [ring], wkid: extent.wkid ?? wkid))
        case .noCell(let hint):
            return IdentifyResult(line: point.line, point: echoed, answer: .noCell(hint: hint, bands: bands),
                                  geometry: .point(Point(x: point.x, y: point.y, wkid: wkid)))
        case .failed(let reason), .unreadable(let reason):
            return IdentifyResult(line: point.line, point: echoed, answer: .failed(reason))
        }
    }

    /// The `result` for an input line that is not a point.
    public static func badLine(_ line: Int, error: IdentifyPointError) -> IdentifyResult {
        IdentifyResult(line: line, point: nil, answer: .failed(error.description))
    }
}
