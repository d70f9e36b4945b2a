import EntityStreamCore
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamModel

/// One GeoTIFF opened for a session (`--raster NAME=FILE.tif`) or for a
/// one-shot `entitystream identify`, owned by this actor: the open
/// ``GeoTIFFRaster`` (which must stay with one thread or actor at a time)
/// answers identify requests and enrichment batches one after another.
///
/// - The initialiser opens the file (header, georeferencing, no pixels) and
///   throws ``RasterError`` when it cannot.
/// - ``identify(_:defaultSpatialReference:)`` answers points with their
///   cell and its extent (``IdentifyAnswer``); a point's error is its own
///   answer, never the batch's.
/// - ``cells(under:)`` is the enrichment path: the cell values only
///   (`sample`, no extent), each distinct cell rendered once as JSON text
///   and kept in a small direct-mapped cache, so observations over the
///   same cell share it.
///
/// A spatial reference PROJ cannot use is remembered with its error, so a
/// stream in an unknown WKID costs one failed lookup, not one per point.
/// Both entry points take batches: callers chunk large requests so that a
/// stream's enrichment never waits long behind an identify job.
public actor SessionRaster {
    /// The session's name for it (`dem`), or the path for a one-shot identify.
    public nonisolated let name: String
    /// What opening found.
    public nonisolated let info: RasterInfo
    private let raster: GeoTIFFRaster
    /// Spatial references that failed as a whole (unknown WKID, no transformation), by WKID.
    private var unusable: [Int: RasterError] = [:]
    private var cellKeys: [Int]
    private var cellTexts: [ObservationEnrichment.Cell?]
    private static let cellCacheSize = 4096

    /// Opens `path` as `name`. Throws ``RasterError`` (not found, not a TIFF, truncated, unsupported…).
    public init(name: String, path: String, options: RasterOpenOptions = RasterOpenOptions()) throws(RasterError) {
        let raster = try GeoTIFFRaster(path: path, options: options)
        self.name = name
        self.info = raster.info
        self.raster = raster
        cellKeys = [Int](repeating: -1, count: Self.cellCacheSize)
        cellTexts = [ObservationEnrichment.Cell?](repeating: nil, count: Self.cellCacheSize)
    }

    /// The WKID a point's answer is given in: its own, else `defaultSpatialReference`'s, else the raster's EPSG code.
    public nonisolated func answerWKID(_ point: IdentifyPoint, defaultSpatialReference: SpatialReference?) -> Int? {
        (point.spatialReference ?? defaultSpatialReference)?.code ?? info.crs.epsgCode
    }

    /// Throws what identify would throw for every point in `spatialReference`
    /// (nil: the raster's own CRS): no georeferencing, an unknown raster CRS,
    /// an unknown spatial reference, no transformation.
    public func check(_ spatialReference: SpatialReference?) throws(RasterError) {
        guard info.geoTransform != nil else {
            throw RasterError.notGeoreferenced(path: info.path, reason: info.notGeoreferencedReason ?? "no geotransform")
        }
        guard let spatialReference else { return }
        if let known = unusable[spatialReference.code] { throw known }
        do { _ = try raster.missingGrids(for: spatialReference) } catch {
            remember(error, for: spatialReference)
            throw error
        }
    }

    /// The answer for each point, in order; a point without its own spatial
    /// reference is in `defaultSpatialReference` (nil: the raster's CRS).
    /// Consecutive points in one spatial reference are answered as one batch
    /// (``GeoTIFFRaster/identify(xs:ys:in:)``: their transformations in one
    /// PROJ call each way).
    public func identify(_ points: ArraySlice<IdentifyPoint>, defaultSpatialReference: SpatialReference?) -> [IdentifyAnswer] {
        var answers: [IdentifyAnswer] = []
        answers.reserveCapacity(points.count)
        var start = points.startIndex
        while start < points.endIndex {
            let spatialReference = points[start].spatialReference ?? defaultSpatialReference
            var end = start + 1
            while end < points.endIndex, (points[end].spatialReference ?? defaultSpatialReference) == spatialReference { end += 1 }
            let run = points[start..<end]
            start = end
            if let spatialReference, let known = unusable[spatialReference.code] {
                answers.append(contentsOf: repeatElement(.failed(known.description), count: run.count))
                continue
            }
            do {
                for (point, cell) in zip(run, try raster.identify(xs: run.map(\.x), ys: run.map(\.y), in: spatialReference)) {
                    switch cell {
                    case .success(let found?): answers.append(.cell(found))
                    case .success(nil): answers.append(.noCell(hint: offRasterHint(point, spatialReference: spatialReference)))
                    case .failure(.readFailed(let path, let block, let detail)):
                        answers.append(.unreadable(RasterError.readFailed(path: path, block: block, detail: detail).description))
                    case .failure(let error):
                        if let spatialReference { remember(error, for: spatialReference) }
                        answers.append(.failed(error.description))
                    }
                }
            } catch {
                if let spatialReference { remember(error, for: spatialReference) }
                if case .readFailed = error {
                    answers.append(contentsOf: repeatElement(.unreadable(error.description), count: run.count))
                } else {
                    answers.append(contentsOf: repeatElement(.failed(error.description), count: run.count))
                }
            }
        }
        return answers
    }

    /// Why a point off the raster may be in the wrong coordinates, or nil:
    /// given without a spatial reference, inside longitude/latitude's range,
    /// while the raster's extent lies wholly outside that range (a projected
    /// raster): the point is probably longitude/latitude; or the point with
    /// x and y exchanged is on the raster: latitude and longitude swapped.
    private func offRasterHint(_ point: IdentifyPoint, spatialReference: SpatialReference?) -> String? {
        let looksGeographic = abs(point.x) <= 180 && abs(point.y) <= 90
        if spatialReference == nil, looksGeographic, let extent = info.extent,
           extent.xmin > 180 || extent.xmax < -180 || extent.ymin > 90 || extent.ymax < -90 {
            return "(\(point.x), \(point.y)) looks like longitude/latitude, far outside the raster's extent in its CRS (\(info.crs)): give the point's spatial reference (--in-sr 4326, or \"inSR\":4326)"
        }
        if (try? raster.cell(x: point.y, y: point.x, in: spatialReference)) != nil {
            return "(\(point.x), \(point.y)) is off the raster, but (\(point.y), \(point.x)) is on it: x and y look swapped (x is the longitude or easting)"
        }
        return nil
    }

    /// The cell under each point as JSON text (nil: no geometry, no cell, or
    /// a problem), for enrichment. A point without a WKID is taken as WGS84
    /// (what ArcGIS stream services send unless asked otherwise). Problems
    /// are grouped by kind, each message naming how many points it affected.
    public func cells(under points: [Point?]) -> (cells: [ObservationEnrichment.Cell?], problems: [String]) {
        var cells: [ObservationEnrichment.Cell?] = []
        cells.reserveCapacity(points.count)
        var problems: [String: (count: Int, example: RasterError)] = [:]
        let mask = Self.cellCacheSize - 1
        let width = info.width
        var spatialReference = SpatialReference.wgs84
        var lastWKID = 4326
        for point in points {
            guard let point else {
                cells.append(nil)
                continue
            }
            let wkid = point.wkid ?? 4326
            if wkid != lastWKID {
                spatialReference = SpatialReference(code: wkid) ?? .wgs84
                lastWKID = wkid
            }
            do throws(RasterError) {
                if !unusable.isEmpty, let known = unusable[spatialReference.code] { throw known }
                guard let located = try raster.cell(x: point.x, y: point.y, in: spatialReference) else {
                    cells.append(nil)
                    continue
                }
                let (column, row) = located
                let key = row &* width &+ column
                let slot = key & mask
                if cellKeys[slot] == key, let text = cellTexts[slot] {
                    cells.append(text)
                    continue
                }
                guard let sample = try raster.sample(column: column, row: row) else {
                    cells.append(nil)
                    continue
                }
                let text = ObservationEnrichment.Cell(raster: name, attributes: sample.attributes)
                cellKeys[slot] = key
                cellTexts[slot] = text
                cells.append(text)
            } catch {
                remember(error, for: spatialReference)
                let kind = Self.kind(of: error)
                problems[kind, default: (0, error)].count += 1
                cells.append(nil)
            }
        }
        let messages = problems.values.sorted { $0.example.description < $1.example.description }.map { problem in
            "raster '\(name)': \(problem.count) observation\(problem.count == 1 ? "" : "s") of this batch got a null cell: \(problem.example)"
                + (problem.count > 1 ? " (and others alike)" : "")
        }
        return (cells, messages)
    }

    /// Remembers errors that concern a whole spatial reference, not one point.
    private func remember(_ error: RasterError, for spatialReference: SpatialReference) {
        switch error {
        case .unknownSpatialReference, .noTransformation, .unknownRasterCRS, .notGeoreferenced, .projDatabaseMissing:
            if unusable.count < 64 { unusable[spatialReference.code] = error }
        default:
            break
        }
    }

    /// Errors of one kind are reported once per batch (point errors differ only by their coordinates).
    private static func kind(of error: RasterError) -> String {
        switch error {
        case .cannotTransform: "cannotTransform"
        case .invalidPoint: "invalidPoint"
        case .readFailed(_, let block, _): "readFailed \(block)"
        default: error.description
        }
    }
}
