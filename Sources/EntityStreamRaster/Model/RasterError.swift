/// Everything that can go wrong opening, reading, identifying or writing a
/// raster; each case names what was wrong (the file, the block, the point,
/// the spatial reference) and ``description`` says it in one sentence.
///
/// A point outside the raster, or on its right or bottom edge, is not an
/// error: identify answers nil. `Sendable`.
public enum RasterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened at all (missing, unreadable).
    case cannotOpen(path: String, reason: String)
    /// The file is not a TIFF (bad magic number, empty, too short for a header).
    case notTIFF(path: String, detail: String)
    /// The file starts as a TIFF but its directory cannot be read (truncated or corrupt).
    case unreadableTIFF(path: String, detail: String)
    /// A TIFF this reader does not handle (sample format, bit depth, codec, colour model).
    case unsupported(path: String, detail: String)
    /// A tile or strip larger than the configured bound.
    case blockTooLarge(path: String, bytes: UInt64, limit: Int)
    /// The `GDAL_NODATA` tag is not a number.
    case invalidNoData(path: String, text: String)
    /// A tile or strip could not be read or decoded (truncated data, corrupt stream).
    case readFailed(path: String, block: Int, detail: String)
    /// The raster has no usable georeferencing: only pixel coordinates
    /// (column, row) can be identified.
    case notGeoreferenced(path: String, reason: String)
    /// The raster's CRS is unknown, so points in another spatial reference
    /// cannot be transformed into it.
    case unknownRasterCRS(path: String, reason: String)
    /// PROJ does not know this spatial reference or CRS definition.
    case unknownSpatialReference(definition: String, detail: String)
    /// PROJ found no transformation between the two.
    case noTransformation(from: String, to: String, detail: String)
    /// This point cannot be transformed (e.g. latitude 95°, or outside the projection's domain).
    case cannotTransform(x: Double, y: Double, from: String, to: String, detail: String)
    /// A coordinate is NaN or infinite.
    case invalidPoint(x: Double, y: Double)
    /// PROJ cannot find its database (`proj.db`, Debian package `proj-data`).
    case projDatabaseMissing(detail: String)
    /// The writer was given something it cannot write.
    case invalidWrite(path: String, detail: String)
    /// libtiff or libgeotiff failed while writing.
    case writeFailed(path: String, detail: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .notTIFF(let path, let detail): "\(path) is not a TIFF file (\(detail))"
        case .unreadableTIFF(let path, let detail): "\(path) is a truncated or corrupt TIFF: \(detail)"
        case .unsupported(let path, let detail): "\(path): unsupported TIFF: \(detail)"
        case .blockTooLarge(let path, let bytes, let limit):
            "\(path): one tile or strip decodes to \(bytes) bytes, more than the limit of \(limit) bytes"
        case .invalidNoData(let path, let text): "\(path): the GDAL_NODATA tag '\(text)' is not a number"
        case .readFailed(let path, let block, let detail): "\(path): cannot read tile/strip \(block): \(detail)"
        case .notGeoreferenced(let path, let reason):
            "\(path) has no georeferencing (\(reason)): only pixel coordinates (column, row) can be identified"
        case .unknownRasterCRS(let path, let reason):
            "\(path): the raster's coordinate system is unknown (\(reason)): points can only be identified in the raster's own coordinates"
        case .unknownSpatialReference(let definition, let detail): "unknown spatial reference \(definition): \(detail)"
        case .noTransformation(let from, let to, let detail): "no transformation from \(from) to \(to): \(detail)"
        case .cannotTransform(let x, let y, let from, let to, let detail):
            "the point (\(x), \(y)) cannot be transformed from \(from) to \(to): \(detail)"
        case .invalidPoint(let x, let y): "the point (\(x), \(y)) is not finite"
        case .projDatabaseMissing(let detail): "PROJ cannot find its database proj.db (install proj-data): \(detail)"
        case .invalidWrite(let path, let detail): "cannot write \(path): \(detail)"
        case .writeFailed(let path, let detail): "writing \(path) failed: \(detail)"
        }
    }
}
