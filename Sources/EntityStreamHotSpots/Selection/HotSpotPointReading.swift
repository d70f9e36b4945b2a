import EntityStreamCore
import EntityStreamProjection

/// How the points of one spatial reference are read by the hot-spot engine:
/// in which spatial reference it measures (the processing reference, as
/// ArcGIS's `processSR` environment), how, and in which reference its
/// results are written by default.
///
/// With a processing reference given, the points are brought into it
/// through PROJ and measured there: a projected reference in its own linear
/// unit (``HotSpotCoordinates/projected``), a geographic one in metres on
/// the ellipsoid (``HotSpotCoordinates/geographic``). Without one:
/// - WGS84, or no spatial reference at all (a live stream's default), or
///   any other geographic reference: longitude/latitude, measured in metres;
/// - Web Mercator: converted to WGS84 first and measured in metres (Web
///   Mercator metres are not ground metres: they grow as 1/cos(latitude),
///   ×1.41 at 45°, so a band or cell size in them would mean different
///   distances in different places);
/// - any other projected reference: planar, in its own linear unit.
/// Results are written in the input's reference unless the caller asks for
/// another (``HotSpotOutput``). A WKID PROJ does not know is refused by name.
/// A value; the conversion is a PROJ batch.
public struct HotSpotPointReading: Sendable, Hashable {
    /// How the engine measures the read coordinates.
    public let coordinates: HotSpotCoordinates
    /// The spatial reference the points arrive in (nil: none given, read as WGS84).
    public let inputWKID: Int?
    /// The spatial reference of the engine's coordinates (and of its results before output).
    public let processingWKID: Int
    /// The linear unit distances are measured in: `metres` for geographic
    /// processing, else the processing reference's unit as PROJ names it.
    public let distanceUnit: String

    /// The reading for points in `wkid`, measured in `processing` when given.
    /// - Throws: ``ProjectionError`` naming a spatial reference PROJ does not
    ///   know, or a pair it cannot transform between.
    public init(wkid: Int?, processing: Int? = nil) throws(ProjectionError) {
        inputWKID = wkid
        let input = SpatialReference(code: wkid) ?? .wgs84
        try input.validate()
        if let processing = SpatialReference(code: processing) {
            try CoordinateOperations.check(from: input, to: processing)
            let geographic = try processing.isGeographic()
            coordinates = geographic ? .geographic : .projected
            processingWKID = processing.code
            distanceUnit = geographic ? "metres" : try processing.unitName()
        } else if input.isWebMercator {
            coordinates = .geographic
            processingWKID = SpatialReference.wgs84.code
            distanceUnit = "metres"
        } else {
            let geographic = try input.isGeographic()
            coordinates = geographic ? .geographic : .projected
            processingWKID = input.code
            distanceUnit = geographic ? "metres" : try input.unitName()
        }
    }

    /// The spatial reference results are written in by default: the input's
    /// own (WGS84 when the points named none).
    public var outputWKID: Int { SpatialReference(code: inputWKID)?.code ?? SpatialReference.wgs84.code }

    /// True when the points are converted before the engine reads them.
    public var convertsInput: Bool { (SpatialReference(code: inputWKID) ?? .wgs84).code != processingWKID }

    /// Converts collected coordinates into the processing reference, in
    /// place, in one PROJ batch; a point PROJ cannot convert becomes NaN (the
    /// input then counts it as an invalid coordinate). Returns how many failed.
    @discardableResult
    public func read(x: inout [Double], y: inout [Double]) -> Int {
        guard convertsInput, let target = SpatialReference(code: processingWKID) else { return 0 }
        let source = SpatialReference(code: inputWKID) ?? .wgs84
        // The pair was checked when this reading was made.
        return (try? CoordinateOperations.transform(x: &x, y: &y, from: source, to: target)) ?? x.count
    }
}
