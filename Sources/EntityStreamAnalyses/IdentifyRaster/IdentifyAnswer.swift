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

    /// The `result` line for this answer to `point`, whose spatial reference
    /// is `wkid` (the point's, else the request's default, else the raster's
    /// EPSG code; nil when none is known).
    ///
    /// Members: `line` when the point has one, `point` (`{"x","y","sr"}`
    /// and the point's `id` when it has one; `sr` as answered), then
    /// `cell: null` for no cell or `error` for a
    /// failure. The feature: for a cell, its extent as a polygon (clockwise
    /// ring from the lower-left corner) in the point's spatial reference with
    /// the Runtime's attributes (`Band_0…`, `Pixel.Type`, `NoData` for a
    /// NoData cell) then `column`, `row`, `xmin`, `ymin`, `xmax`, `ymax`; for
    /// no cell, the point itself with no attributes; none for a failure.
    public func result(for point: IdentifyPoint, wkid: Int?) -> (members: JSONObject, feature: AnalysisFeature?) {
        var members = Self.echo(line: point.line)
        var echoed = JSONObject()
        echoed.append(key: "x", value: .double(point.x))
        echoed.append(key: "y", value: .double(point.y))
        echoed.append(key: "sr", value: SpatialReference(code: wkid).map { reference in reference.wkid.map { .int(Int64($0)) } ?? reference.json } ?? .null)
        if let id = point.id { echoed.append(key: "id", value: id) }
        members.append(key: "point", value: .object(echoed))
        switch self {
        case .cell(let cell):
            var attributes = cell.attributes
            attributes.append(key: "column", value: .int(Int64(cell.column)))
            attributes.append(key: "row", value: .int(Int64(cell.row)))
            let extent = cell.extent
            attributes.append(key: "xmin", value: .double(extent.xmin))
            attributes.append(key: "ymin", value: .double(extent.ymin))
            attributes.append(key: "xmax", value: .double(extent.xmax))
            attributes.append(key: "ymax", value: .double(extent.ymax))
            typealias Corner = AnalysisGeometry.Coordinate
            let ring = [Corner(x: extent.xmin, y: extent.ymin), Corner(x: extent.xmin, y: extent.ymax), Corner(x: extent.xmax, y: extent.ymax),
                        Corner(x: extent.xmax, y: extent.ymin), Corner(x: extent.xmin, y: extent.ymin)]
            return (members, AnalysisFeature(geometry: .polygon(rings: [ring], wkid: extent.wkid ?? wkid), attributes: attributes))
        case .noCell(let hint):
            members.append(key: "cell", value: .null)
            if let hint { members.append(key: "hint", value: .string(hint)) }
            return (members, AnalysisFeature(geometry: .point(Point(x: point.x, y: point.y, wkid: wkid)), attributes: JSONObject()))
        case .failed(let reason), .unreadable(let reason):
            members.append(key: "error", value: .string(reason))
            return (members, nil)
        }
    }

    /// The `result` line for an input line that is not a point.
    public static func badLine(_ line: Int, error: IdentifyPointError) -> (members: JSONObject, feature: AnalysisFeature?) {
        var members = echo(line: line)
        members.append(key: "error", value: .string(error.description))
        return (members, nil)
    }

    private static func echo(line: Int?) -> JSONObject {
        var members = JSONObject()
        if let line { members.append(key: "line", value: .int(Int64(line))) }
        return members
    }
}
