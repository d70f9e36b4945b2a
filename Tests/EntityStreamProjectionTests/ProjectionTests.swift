import EntityStreamTestSupport
import Foundation
import EntityStreamProjection
import Testing
import EntityStreamModel

/// PROJ through the Projection module, checked against coordinates the test
/// computes itself from the projections' formulas (``ProjectionOracles``),
/// published EPSG test points (Guidance Note 7-2), and round trips.
@Suite("Coordinate operations through PROJ", .bounded)
struct ProjectionTests {
    static let oregonNorth = SpatialReference(wkid: 2913)

    /// EPSG Guidance Note 7-2, Transverse Mercator example: OSGB 1936
    /// 50°30′N 0°30′E is E 577,274.99 m, N 69,740.50 m on the British
    /// National Grid, which the test's own Snyder series also gives.
    @Test
    func publishedTransverseMercatorPoint() throws {
        let projected = try CoordinateOperations.transform(x: 0.5, y: 50.5, from: SpatialReference(wkid: 4277), to: SpatialReference(wkid: 27700))
        #expect(abs(projected.x - 577_274.99) < 0.01)
        #expect(abs(projected.y - 69_740.50) < 0.01)
        let oracle = ProjectionOracles.transverseMercator(longitude: 0.5, latitude: 50.5, ellipsoid: .airy1830, latitudeOfOrigin: 49,
                                                          centralMeridian: -2, scale: 0.999_601_271_7, falseEasting: 400_000, falseNorthing: -100_000)
        #expect(abs(projected.x - oracle.x) < 0.01 && abs(projected.y - oracle.y) < 0.01)
    }

    /// EPSG Guidance Note 7-2, Lambert Conic Conformal (2SP) example: NAD27
    /// 28°30′N 96°00′W is E 2,963,503.91 ftUS, N 254,759.80 ftUS in Texas
    /// South Central (EPSG:32040), which the test's Snyder formulas also give.
    @Test
    func publishedLambertPoint() throws {
        let projected = try CoordinateOperations.transform(x: -96, y: 28.5, from: SpatialReference(wkid: 4267), to: SpatialReference(wkid: 32040))
        #expect(abs(projected.x - 2_963_503.91) < 0.01)
        #expect(abs(projected.y - 254_759.80) < 0.01)
        let usFoot = 1200.0 / 3937
        let metres = ProjectionOracles.lambertConformalConic(longitude: -96, latitude: 28.5, ellipsoid: .clarke1866,
                                                             latitudeOfOrigin: 27 + 50.0 / 60, centralMeridian: -99,
                                                             standardParallel1: 28 + 23.0 / 60, standardParallel2: 30 + 17.0 / 60,
                                                             falseEasting: 0, falseNorthing: 0)
        #expect(abs(projected.x - (metres.x / usFoot + 2_000_000)) < 0.01)
        #expect(abs(projected.y - metres.y / usFoot) < 0.01)
    }

    /// Oregon North (ft), the Portland incidents' system: NAD83(HARN)
    /// longitude/latitude → feet equals the Lambert formulas to a millimetre
    /// across the zone, and WGS84 input within 2 m of it (PROJ applies the
    /// NAD83(HARN) → WGS84 Helmert transformation, about 1.3 m in Oregon).
    @Test
    func oregonNorthAgainstFormula() throws {
        var generator = SplitMix64(seed: 2913)
        for _ in 0..<200 {
            let longitude = -124 + generator.nextDouble() * 7, latitude = 44 + generator.nextDouble() * 2.2
            let oracle = ProjectionOracles.oregonNorthFeet(longitude: longitude, latitude: latitude)
            let harn = try CoordinateOperations.transform(x: longitude, y: latitude, from: SpatialReference(wkid: 4152), to: Self.oregonNorth)
            #expect(abs(harn.x - oracle.x) < 0.003 && abs(harn.y - oracle.y) < 0.003, "\(longitude), \(latitude)")
            let wgs84 = try CoordinateOperations.transform(x: longitude, y: latitude, from: .wgs84, to: Self.oregonNorth)
            #expect(abs(wgs84.x - oracle.x) < 6.6 && abs(wgs84.y - oracle.y) < 6.6, "\(longitude), \(latitude)")
        }
    }

    /// UTM zone 10N from WGS84 equals Snyder's series within the zone.
    @Test
    func utmAgainstFormula() throws {
        var generator = SplitMix64(seed: 32610)
        var xs: [Double] = [], ys: [Double] = []
        for _ in 0..<500 {
            xs.append(-126 + generator.nextDouble() * 6)
            ys.append(generator.nextDouble() * 80)
        }
        var projectedX = xs, projectedY = ys
        let failed = try CoordinateOperations.transform(x: &projectedX, y: &projectedY, from: .wgs84, to: SpatialReference(wkid: 32610))
        #expect(failed == 0)
        for index in xs.indices {
            let oracle = ProjectionOracles.transverseMercator(longitude: xs[index], latitude: ys[index], ellipsoid: .wgs84, latitudeOfOrigin: 0,
                                                              centralMeridian: -123, scale: 0.9996, falseEasting: 500_000, falseNorthing: 0)
            #expect(abs(projectedX[index] - oracle.x) < 0.02 && abs(projectedY[index] - oracle.y) < 0.02, "\(xs[index]), \(ys[index])")
        }
    }

    /// WGS84 → Web Mercator is the spherical formula, x = longitude (the
    /// ArcGIS axis order, though EPSG:4326's own axes are latitude first),
    /// and every Web Mercator alias is the same reference.
    @Test
    func webMercatorAndAxisOrder() throws {
        for (longitude, latitude) in [(-122.68, 45.52), (0.0, 0.0), (151.2, -33.9), (-179.9, 85.0)] {
            let projected = try CoordinateOperations.transform(x: longitude, y: latitude, from: .wgs84, to: .webMercator)
            let oracle = ProjectionOracles.webMercator(longitude: longitude, latitude: latitude)
            #expect(abs(projected.x - oracle.x) < 1e-6 && abs(projected.y - oracle.y) < 1e-6)
        }
        for alias in [102100, 102113, 900913, 3857] {
            #expect(SpatialReference(wkid: alias) == .webMercator)
        }
        #expect(SpatialReference(wkid: 102100, latestWkid: 3857) == .webMercator)
        // A latestWkid PROJ does not know falls back to the wkid.
        #expect(SpatialReference(wkid: 2913, latestWkid: 999_999) == Self.oregonNorth)
    }

    /// Round trips WGS84 → Oregon North → WGS84 come back to a nanodegree,
    /// and a batch gives exactly what point-by-point calls give.
    @Test
    func roundTripsAndBatches() throws {
        var generator = SplitMix64(seed: 7)
        var xs: [Double] = [], ys: [Double] = []
        for _ in 0..<1000 {
            xs.append(-124 + generator.nextDouble() * 7)
            ys.append(44 + generator.nextDouble() * 2.2)
        }
        var feetX = xs, feetY = ys
        try CoordinateOperations.transform(x: &feetX, y: &feetY, from: .wgs84, to: Self.oregonNorth)
        for index in xs.indices {
            let single = try CoordinateOperations.transform(x: xs[index], y: ys[index], from: .wgs84, to: Self.oregonNorth)
            #expect(single.x == feetX[index] && single.y == feetY[index])
        }
        var backX = feetX, backY = feetY
        try CoordinateOperations.transform(x: &backX, y: &backY, from: Self.oregonNorth, to: .wgs84)
        for index in xs.indices {
            #expect(abs(backX[index] - xs[index]) < 1e-9 && abs(backY[index] - ys[index]) < 1e-9)
        }
    }

    /// A batch large enough to be split across cores gives exactly the
    /// serial answers, part boundaries included.
    @Test
    func parallelBatchEqualsSerial() throws {
        let count = CoordinateOperations.parallelThreshold * 2 + 17
        var generator = SplitMix64(seed: 99)
        var xs: [Double] = [], ys: [Double] = []
        for _ in 0..<count {
            xs.append(-180 + generator.nextDouble() * 360)
            ys.append(-80 + generator.nextDouble() * 160)
        }
        var parallelX = xs, parallelY = ys
        try CoordinateOperations.transform(x: &parallelX, y: &parallelY, from: .wgs84, to: .webMercator)
        let serial = try CoordinateOperation(from: .wgs84, to: .webMercator)
        var serialX = xs, serialY = ys
        serial.transform(x: &serialX, y: &serialY)
        #expect(parallelX == serialX && parallelY == serialY)
    }

    /// The parts of a batch large enough to split cover it once, in order,
    /// each with an operation of its own (a PROJ context serves one thread);
    /// transformed in parts, EPSG's published OSGB 1936 point (Guidance Note
    /// 7-2) put at both ends of every part comes out as published, and every
    /// point as one operation alone transforms it, in the input's order.
    @Test
    func partsCoverTheBatchInOrder() throws {
        let osgb = SpatialReference(wkid: 4277), britishGrid = SpatialReference(wkid: 27700)
        let count = CoordinateOperations.parallelThreshold * 2 + 5
        let seen = PartLog()
        try CoordinateOperations.forEachPart(of: count, from: osgb, to: britishGrid) { operation, range in
            seen.lock.withLock { seen.parts.append((range, ObjectIdentifier(operation))) }
        }
        let parts = seen.parts.sorted { $0.range.lowerBound < $1.range.lowerBound }
        #expect(parts.count == CoordinateOperations.partCount(of: count))
        #expect(parts.first?.range.lowerBound == 0 && parts.last?.range.upperBound == count)
        for (part, next) in zip(parts, parts.dropFirst()) { #expect(part.range.upperBound == next.range.lowerBound) }
        #expect(Set(parts.map(\.operation)).count == parts.count)
        // Below the threshold: one part, the whole batch.
        #expect(CoordinateOperations.partCount(of: 100) == 1)
        // Items of several points (a cell's four corners) split as their points would.
        #expect(CoordinateOperations.partCount(of: 2048, pointsEach: 4) == CoordinateOperations.partCount(of: 8192))

        var generator = SplitMix64(seed: 27700)
        var xs: [Double] = [], ys: [Double] = []
        for _ in 0..<count {
            xs.append(-5 + generator.nextDouble() * 6)
            ys.append(50 + generator.nextDouble() * 5)
        }
        let published = parts.flatMap { [$0.range.lowerBound, $0.range.upperBound - 1] }
        for index in published { (xs[index], ys[index]) = (0.5, 50.5) }
        var partX = xs, partY = ys
        #expect(try CoordinateOperations.transform(x: &partX, y: &partY, from: osgb, to: britishGrid) == 0)
        for index in published {
            #expect(abs(partX[index] - 577_274.99) < 0.01 && abs(partY[index] - 69_740.50) < 0.01, "point \(index)")
        }
        let alone = try CoordinateOperation(from: osgb, to: britishGrid)
        var aloneX = xs, aloneY = ys
        alone.transform(x: &aloneX, y: &aloneY)
        #expect(partX == aloneX && partY == aloneY)
    }

    /// A point outside the projection's domain is an error naming it, or in
    /// a batch a NaN point that is counted; the operation stays usable.
    @Test
    func pointsOutsideTheDomain() throws {
        let operation = try CoordinateOperation(from: .wgs84, to: SpatialReference(wkid: 32610))
        #expect {
            try operation.forward(x: -123, y: 95)
        } throws: { error in
            guard case ProjectionError.cannotTransform(let x, let y, let from, _, _) = error else { return false }
            return x == -123 && y == 95 && from == "EPSG:4326"
        }
        var xs = [-123.0, -123.0, .nan], ys = [45.0, 95.0, 45.0]
        #expect(operation.transform(x: &xs, y: &ys) == 2)
        #expect(xs[0].isFinite && xs[1].isNaN && ys[1].isNaN && xs[2].isNaN)
        #expect(try operation.forward(x: -123, y: 45).x.isFinite)
    }

    /// Unknown WKIDs and text that is no spatial reference are errors naming
    /// them; Esri-only WKIDs resolve under PROJ's ESRI authority.
    @Test
    func unknownAndMalformedReferences() throws {
        #expect {
            try SpatialReference.parse("99999")
        } throws: { error in
            guard case ProjectionError.unknownSpatialReference(let name, let detail) = error else { return false }
            return name == "wkid 99999" && detail.contains("EPSG:99999") && detail.contains("ESRI:99999")
        }
        #expect {
            try CoordinateOperations.borrow(from: SpatialReference(wkid: 99999), to: .wgs84)
        } throws: { error in
            guard case ProjectionError.unknownSpatialReference(let name, _) = error else { return false }
            return name == "wkid 99999"
        }
        for text in ["abc", "0", "-4326", "EPSG:x", "", "3.5"] {
            #expect(throws: ProjectionError.self) { try SpatialReference.parse(text) }
        }
        #expect(try SpatialReference.parse(" 2913 ") == Self.oregonNorth)
        #expect(try SpatialReference.parse("EPSG:2913") == Self.oregonNorth)
        #expect(try SpatialReference.parse("esri:102100") == .webMercator)
        let robinson = try SpatialReference.parse("54030")
        #expect(try robinson.projDefinition() == "ESRI:54030")
        #expect(try CoordinateOperations.transform(x: 10, y: 10, from: .wgs84, to: robinson).x.isFinite)
    }

    /// WKT that PROJ identifies as an EPSG CRS becomes that WKID; other WKT
    /// gets a code of its own that gives its text back and transforms as
    /// its parameters say (here the Lambert formulas).
    @Test
    func wktReferences() throws {
        let wgs84WKT = #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4326"]]"#
        #expect(try SpatialReference(wkt: wgs84WKT) == .wgs84)
        let custom = #"PROJCS["Custom Lambert",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],PARAMETER["False_Easting",1000.0],PARAMETER["False_Northing",2000.0],PARAMETER["Central_Meridian",10.0],PARAMETER["Standard_Parallel_1",40.0],PARAMETER["Standard_Parallel_2",50.0],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Meter",1.0]]"#
        let reference = try SpatialReference.parse(custom)
        #expect(reference.code < 0 && reference.wkid == nil)
        #expect(reference.wkt == custom)
        #expect(try SpatialReference(wkt: custom) == reference)
        #expect(try reference.isGeographic() == false)
        let projected = try CoordinateOperations.transform(x: 12, y: 47, from: .wgs84, to: reference)
        let oracle = ProjectionOracles.lambertConformalConic(longitude: 12, latitude: 47, ellipsoid: .wgs84, latitudeOfOrigin: 45,
                                                             centralMeridian: 10, standardParallel1: 40, standardParallel2: 50,
                                                             falseEasting: 1000, falseNorthing: 2000)
        #expect(abs(projected.x - oracle.x) < 0.001 && abs(projected.y - oracle.y) < 0.001)
        #expect(throws: ProjectionError.self) { try SpatialReference(wkt: "PROJCS[\"broken\"") }
    }

    /// What PROJ says about a reference: geographic or not, and its unit.
    @Test
    func facts() throws {
        #expect(try SpatialReference.wgs84.isGeographic())
        #expect(try SpatialReference.webMercator.isGeographic() == false)
        #expect(try Self.oregonNorth.unitName() == "foot")
        #expect(try SpatialReference.webMercator.unitName() == "metre")
        #expect(try Self.oregonNorth.name().contains("Oregon North"))
    }
}

/// The parts ``CoordinateOperations/forEachPart(of:pointsEach:from:to:_:)``
/// ran, as each part noted them from its own thread.
private final class PartLog: @unchecked Sendable {
    let lock = NSLock()
    var parts: [(range: Range<Int>, operation: ObjectIdentifier)] = []
}
