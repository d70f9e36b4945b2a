import EntityStreamCore
import EntityStreamRaster
import EntityStreamModel

/// What an identify job reports (``IdentifyRasterJob``): the `"raster"`
/// (`{"name","file","width","height","bands","pixelType","crs"}`), then the
/// counts of its answers: `"points"` asked, `"cells"` found (of which
/// `"noData"`), `"noCell"` (off the raster), `"errors"` (a bad line, a
/// failed conversion, an unreadable tile) and, when any, `"unreadable"`:
/// points whose cells lie in a tile or strip that could not be read, which
/// makes the answer incomplete (``incompleteInput``). A value type.
public struct IdentifyReport: AnalysisReport {
    /// The raster's name in the session.
    public var raster: String
    public var info: RasterInfo
    public var points = 0
    public var cells = 0
    public var noData = 0
    public var noCell = 0
    public var errors = 0
    public var unreadable = 0

    public init(raster: String, info: RasterInfo) {
        self.raster = raster
        self.info = info
    }

    /// Counts one point's answer.
    mutating func count(_ answer: IdentifyAnswer) {
        points += 1
        switch answer {
        case .cell(let cell):
            cells += 1
            if cell.isNoData { noData += 1 }
        case .noCell: noCell += 1
        case .failed: errors += 1
        case .unreadable:
            errors += 1
            unreadable += 1
        }
    }

    public var members: JSONObject {
        var members = JSONObject()
        var raster = JSONObject()
        raster.append("name", self.raster)
        raster.append("file", info.path)
        raster.append("width", info.width)
        raster.append("height", info.height)
        raster.append("bands", info.bandCount)
        raster.append("pixelType", info.pixelType.rawValue)
        raster.append("crs", info.crs.description)
        members.append(key: "raster", value: .object(raster))
        members.append("points", points)
        members.append("cells", cells)
        members.append("noData", noData)
        members.append("noCell", noCell)
        members.append("errors", errors)
        if unreadable > 0 { members.append("unreadable", unreadable) }
        return members
    }

    /// Set when points fell in tiles or strips that could not be read.
    public var incompleteInput: String? {
        guard unreadable > 0 else { return nil }
        return "\(unreadable) point\(unreadable == 1 ? "" : "s") fell in tiles or strips of \(info.path) that could not be read (the file is truncated or corrupt)"
    }
}
