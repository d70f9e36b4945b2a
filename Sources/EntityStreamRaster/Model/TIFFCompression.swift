/// A TIFF `Compression` code (tag 259), with names for the common ones.
/// Reading accepts whatever the installed libtiff decodes; the writer
/// offers ``none``, ``lzw``, ``deflate`` and ``packBits``. `Sendable`.
public struct TIFFCompression: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let none = TIFFCompression(rawValue: 1)
    public static let lzw = TIFFCompression(rawValue: 5)
    public static let jpeg = TIFFCompression(rawValue: 7)
    public static let deflate = TIFFCompression(rawValue: 8)
    public static let packBits = TIFFCompression(rawValue: 32773)
    public static let adobeDeflate = TIFFCompression(rawValue: 32946)
    public static let lzma = TIFFCompression(rawValue: 34925)
    public static let zstd = TIFFCompression(rawValue: 50000)
    public static let webp = TIFFCompression(rawValue: 50001)

    public var description: String {
        switch rawValue {
        case 1: "none"
        case 5: "LZW"
        case 7: "JPEG"
        case 8, 32946: "Deflate"
        case 32773: "PackBits"
        case 34925: "LZMA"
        case 50000: "ZSTD"
        case 50001: "WebP"
        default: "compression \(rawValue)"
        }
    }
}

/// A TIFF `Predictor` (tag 317): 1 none, 2 horizontal differencing, 3
/// floating point. libtiff undoes it on read. `Sendable`.
public enum TIFFPredictor: UInt16, Sendable, Hashable {
    case none = 1
    case horizontal = 2
    case floatingPoint = 3
}

/// A TIFF `PlanarConfiguration` (tag 284). `Sendable`.
public enum PlanarConfiguration: UInt16, Sendable, Hashable {
    /// 1: a pixel's bands are stored together (RGBRGB…).
    case contiguous = 1
    /// 2: each band is stored in its own plane of strips or tiles.
    case separate = 2
}

/// How a TIFF's image data is cut into blocks. `Sendable`.
public enum TIFFBlockShape: Sendable, Hashable {
    /// Full-width strips of this many rows (the last may be shorter).
    case strips(rowsPerStrip: Int)
    /// Tiles of this size (multiples of 16; edge tiles padded).
    case tiles(width: Int, height: Int)
}
