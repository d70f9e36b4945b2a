/// The georeferencing a GeoTIFF's tags carry, and GDAL's rules that turn it
/// into a ``GeoTransform`` (GDAL `frmts/gtiff/gtiffdataset_read.cpp`,
/// `doc/source/drivers/raster/gtiff.rst`).
///
/// - `ModelPixelScaleTag` (33550, Sx Sy Sz) with `ModelTiepointTag` (33922,
///   I J K X Y Z …) take precedence: gt = [X − I·Sx, Sx, 0, Y − J·gt5, 0, gt5]
///   with gt5 = −Sy. The first tiepoint is used. A negative Sy is, as in
///   GDAL's default, taken to mean a north-up file (gt5 = Sy, still negative)
///   unless `honourNegativeScaleY` (GDAL's `GTIFF_HONOUR_NEGATIVE_SCALEY=YES`)
///   makes it south-up (gt5 = −Sy > 0).
/// - Otherwise `ModelTransformationTag` (34264, a 4×4 row-major matrix M of
///   exactly 16 values): gt = [M3, M0, M1, M7, M4, M5].
/// - `PixelIsPoint` shifts either result half a cell up-left
///   (gt0 −= (gt1 + gt2)/2, gt3 −= (gt4 + gt5)/2) unless `pointGeoIgnore`
///   (GDAL's `GTIFF_POINT_GEO_IGNORE=YES`).
///
/// Pure value type; `Sendable`.
public struct GeoreferencingTags: Sendable, Hashable {
    public var pixelScale: [Double]?
    public var tiepoints: [Double]?
    public var transformation: [Double]?
    public var rasterType: RasterType

    public init(pixelScale: [Double]? = nil, tiepoints: [Double]? = nil, transformation: [Double]? = nil,
                rasterType: RasterType = .pixelIsArea) {
        self.pixelScale = pixelScale
        self.tiepoints = tiepoints
        self.transformation = transformation
        self.rasterType = rasterType
    }

    /// What the tags give: a geotransform, or why there is none.
    public enum Outcome: Sendable, Hashable {
        case georeferenced(GeoTransform)
        case notGeoreferenced(reason: String)
    }

    /// The geotransform under GDAL's rules (see the type's comment).
    public func resolve(honourNegativeScaleY: Bool = false, pointGeoIgnore: Bool = false) -> Outcome {
        var coefficients: [Double]
        if let scale = pixelScale, scale.count >= 2, scale[0] != 0, scale[1] != 0 {
            guard let tie = tiepoints, tie.count >= 6 else {
                return .notGeoreferenced(reason: "the file has a ModelPixelScale tag but no ModelTiepoint tag")
            }
            let gt1 = scale[0]
            let gt5 = scale[1] < 0 && honourNegativeScaleY ? -scale[1] : (scale[1] < 0 ? scale[1] : -scale[1])
            coefficients = [tie[3] - tie[0] * gt1, gt1, 0, tie[4] - tie[1] * gt5, 0, gt5]
        } else if let matrix = transformation, matrix.count == 16 {
            coefficients = [matrix[3], matrix[0], matrix[1], matrix[7], matrix[4], matrix[5]]
        } else if let tie = tiepoints, tie.count >= 6 {
            return .notGeoreferenced(reason: "the file has tiepoints without a pixel scale (ground control points), which are not supported")
        } else if transformation != nil {
            return .notGeoreferenced(reason: "the ModelTransformation tag does not have 16 values")
        } else {
            return .notGeoreferenced(reason: "the file has no ModelPixelScale/ModelTiepoint or ModelTransformation tags")
        }
        if rasterType == .pixelIsPoint && !pointGeoIgnore {
            coefficients[0] -= coefficients[1] * 0.5 + coefficients[2] * 0.5
            coefficients[3] -= coefficients[4] * 0.5 + coefficients[5] * 0.5
        }
        guard let transform = GeoTransform(coefficients) else {
            return .notGeoreferenced(reason: "the georeferencing tags give a non-finite or non-invertible geotransform \(coefficients)")
        }
        return .georeferenced(transform)
    }
}
