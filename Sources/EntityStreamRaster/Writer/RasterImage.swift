/// Pixel values to write: `bandCount` bands of `width × height` samples of
/// one ``PixelType``, held as Doubles, band after band, row after row
/// (`values[(band · height + row) · width + column]`). A value type;
/// `Sendable`. ``GeoTIFFWriter`` checks the count and that every value is
/// exactly representable in the pixel type.
public struct RasterImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let bandCount: Int
    public let pixelType: PixelType
    public var values: [Double]

    /// An image with the given values (band-major, then row-major).
    public init(width: Int, height: Int, bandCount: Int = 1, pixelType: PixelType, values: [Double]) {
        self.width = width
        self.height = height
        self.bandCount = bandCount
        self.pixelType = pixelType
        self.values = values
    }

    /// An image whose sample at (`band`, `column`, `row`) is `value(band, column, row)`.
    public init(width: Int, height: Int, bandCount: Int = 1, pixelType: PixelType,
                value: (_ band: Int, _ column: Int, _ row: Int) -> Double) {
        var values: [Double] = []
        values.reserveCapacity(max(0, width) * max(0, height) * max(0, bandCount))
        for band in 0..<max(0, bandCount) {
            for row in 0..<max(0, height) {
                for column in 0..<max(0, width) { values.append(value(band, column, row)) }
            }
        }
        self.init(width: width, height: height, bandCount: bandCount, pixelType: pixelType, values: values)
    }

    /// The sample of `band` at (`column`, `row`); all three must be in range.
    public func value(band: Int, column: Int, row: Int) -> Double {
        values[(band * height + row) * width + column]
    }
}
