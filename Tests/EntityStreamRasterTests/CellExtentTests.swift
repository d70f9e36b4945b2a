import EntityStreamModel
import Foundation
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamTestSupport
import Testing

/// The extent identify answers for a cell in another spatial reference than
/// the raster's is the envelope of the cell's four corners, each transformed
/// on its own: the corners computed here from the geotransform the test
/// wrote (580,000 + 30·column, 4,430,000 − 30·row on UTM 18N), transformed
/// one at a time by an operation of the test's own (raster CRS → the point's
/// reference, not the raster's inverse). Holds point by point and in
/// batches, for cells identified again (answered from the raster's extent
/// cache), and for cells identified in two references in turn.
@Suite(.bounded)
struct CellExtentTests {
    /// The envelope of cell (`column`, `row`)'s corners, each transformed alone into `reference`.
    static func expectedExtent(column: Int, row: Int, in reference: SpatialReference, _ operation: CoordinateOperation) throws -> Envelope {
        let left = 580_000 + 30 * Double(column), top = 4_430_000 - 30 * Double(row)
        var xs: [Double] = [], ys: [Double] = []
        for (x, y) in [(left, top), (left + 30, top), (left + 30, top - 30), (left, top - 30)] {
            let corner = try operation.forward(x: x, y: y)
            xs.append(corner.x)
            ys.append(corner.y)
        }
        return Envelope(xmin: xs.min()!, ymin: ys.min()!, xmax: xs.max()!, ymax: ys.max()!, wkid: reference.code)
    }

    /// Points in WGS84 and Web Mercator over 600 cells (each cell several
    /// times, in a shuffled order, so most answers after the first come from
    /// the cache and slots are shared between cells and references).
    static func points(seed: UInt64) -> [(column: Int, row: Int, longitude: Double, latitude: Double)] {
        var generator = SplitMix64(seed: seed)
        var cells: [(Int, Int)] = []
        for _ in 0..<600 { cells.append((Int(generator.next() % 200), Int(generator.next() % 150))) }
        var points: [(column: Int, row: Int, longitude: Double, latitude: Double)] = []
        let toWGS84 = try! CoordinateOperation(from: SpatialReference(wkid: 32618), to: .wgs84)
        for _ in 0..<4 {
            for (column, row) in cells {
                // Inside the cell, away from its edges (0.2–0.8 of a cell).
                let x = 580_000 + 30 * (Double(column) + 0.2 + 0.6 * generator.nextDouble())
                let y = 4_430_000 - 30 * (Double(row) + 0.2 + 0.6 * generator.nextDouble())
                let point = try! toWGS84.forward(x: x, y: y)
                points.append((column, row, point.x, point.y))
            }
        }
        return points
    }

    @Test("A cell's extent in WGS84 and Web Mercator is the envelope of its corners transformed one by one, cached or not")
    func extentsAreTheTransformedCorners() throws {
        let directory = try TemporaryDirectory()
        let points = Self.points(seed: 21)
        let toWGS84 = try CoordinateOperation(from: SpatialReference(wkid: 32618), to: .wgs84)
        let toWebMercator = try CoordinateOperation(from: SpatialReference(wkid: 32618), to: .webMercator)
        var expected: [Int: [Int: Envelope]] = [4326: [:], 3857: [:]]
        for point in points {
            let cell = point.row * 200 + point.column
            expected[4326]![cell] = try Self.expectedExtent(column: point.column, row: point.row, in: .wgs84, toWGS84)
            expected[3857]![cell] = try Self.expectedExtent(column: point.column, row: point.row, in: .webMercator, toWebMercator)
        }
        func check(_ cell: RasterCell?, _ point: (column: Int, row: Int, longitude: Double, latitude: Double), _ reference: SpatialReference,
                   _ how: String) {
            guard let cell else {
                Issue.record("\(how): no cell at \(point)")
                return
            }
            #expect(cell.column == point.column && cell.row == point.row, "\(how)")
            #expect(cell.values == [Double(point.row * 200 + point.column)], "\(how)")
            let wanted = expected[reference.code]![point.row * 200 + point.column]!
            let e = cell.extent
            let tolerance = reference == .wgs84 ? 1e-12 : 1e-7
            #expect(e.wkid == reference.code, "\(how)")
            #expect(abs(e.xmin - wanted.xmin) <= tolerance && abs(e.xmax - wanted.xmax) <= tolerance
                        && abs(e.ymin - wanted.ymin) <= tolerance && abs(e.ymax - wanted.ymax) <= tolerance,
                    "\(how) cell (\(point.column), \(point.row)) in \(reference.label): \(e) but the corners give \(wanted)")
        }
        func inReference(_ point: (column: Int, row: Int, longitude: Double, latitude: Double), _ reference: SpatialReference) -> (x: Double, y: Double) {
            reference == .wgs84 ? (point.longitude, point.latitude) : ProjectionOracles.webMercator(longitude: point.longitude, latitude: point.latitude)
        }

        // Point by point, the two references in turn on one raster (each cell four times in each).
        let raster = try TransformationTests.utmRaster(in: directory)
        for point in points {
            for reference in [SpatialReference.wgs84, .webMercator] {
                let p = inReference(point, reference)
                check(try raster.identify(x: p.x, y: p.y, in: reference), point, reference, "point by point")
            }
        }
        #expect(raster.cacheStatistics.extentHits > points.count / 2, "cells identified again take their extent from the cache")

        // In batches on a fresh raster: the first batch computes, the later ones (same cells) hit the cache.
        let batchRaster = try GeoTIFFRaster(path: directory.file("utm.tif"))
        for reference in [SpatialReference.wgs84, .webMercator, .wgs84] {
            for batch in stride(from: 0, to: points.count, by: 700) {
                let slice = points[batch..<min(batch + 700, points.count)]
                let coordinates = slice.map { inReference($0, reference) }
                let answers = try batchRaster.identify(xs: coordinates.map(\.x), ys: coordinates.map(\.y), in: reference)
                for (answer, point) in zip(answers, slice) { check(try answer.get(), point, reference, "in batches") }
            }
        }
        #expect(batchRaster.cacheStatistics.extentHits > points.count)

        // The extent of a cell asked for directly, after identify cached it, and in the raster's own CRS.
        let first = points[0]
        let direct = try raster.extent(column: first.column, row: first.row, in: .wgs84)
        let wanted = expected[4326]![first.row * 200 + first.column]!
        #expect(abs(direct.xmin - wanted.xmin) <= 1e-12 && abs(direct.ymax - wanted.ymax) <= 1e-12 && direct.wkid == 4326)
        // A cell outside the raster (which the extent cache never holds) is its own, not the cell its number would name.
        _ = try raster.identify(x: (try toWGS84.forward(x: 585_985, y: 4_429_985)).x, y: (try toWGS84.forward(x: 585_985, y: 4_429_985)).y, in: .wgs84)
        let outside = try raster.extent(column: -1, row: 1, in: .wgs84)
        let outsideWanted = try Self.expectedExtent(column: -1, row: 1, in: .wgs84, toWGS84)
        #expect(abs(outside.xmin - outsideWanted.xmin) <= 1e-12 && abs(outside.ymax - outsideWanted.ymax) <= 1e-12, "\(outside)")
        let native = try raster.extent(column: first.column, row: first.row)
        #expect(native == Envelope(xmin: 580_000 + 30 * Double(first.column), ymin: 4_430_000 - 30 * Double(first.row + 1),
                                   xmax: 580_000 + 30 * Double(first.column + 1), ymax: 4_430_000 - 30 * Double(first.row), wkid: 32618))
    }
}
