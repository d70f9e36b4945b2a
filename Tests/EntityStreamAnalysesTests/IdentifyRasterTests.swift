import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamRaster
import Testing
import EntityStreamModel
import EntityStreamAnalyses

/// An 8×6 float32 raster in WGS84 over lon −112…−111, lat 40…40.75 (cells of
/// 0.125°, exact in binary): cell (c, r) holds 1000 + 10·r + c + 0.5, except
/// cell (3, 2), which is NoData (−9999).
private enum TestRaster {
    static let originX = -112.0, originY = 40.75, cellSize = 0.125, width = 8, height = 6

    static func value(_ column: Int, _ row: Int) -> Double? {
        column == 3 && row == 2 ? nil : 1000 + 10 * Double(row) + Double(column) + 0.5
    }

    static func write(to path: String) throws {
        let image = RasterImage(width: width, height: height, pixelType: .float32) { _, column, row in value(column, row) ?? -9999 }
        let transform = try #require(GeoTransform([originX, cellSize, 0, originY, 0, -cellSize]))
        try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(
            blockShape: .tiles(width: 16, height: 16), georeferencing: .geoTransform(transform), crs: .geographic(epsg: 4326), noData: NoDataValue(-9999)))
    }

    /// The centre of cell (c, r), lon/lat.
    static func center(_ column: Int, _ row: Int) -> (x: Double, y: Double) {
        (originX + (Double(column) + 0.5) * cellSize, originY - (Double(row) + 0.5) * cellSize)
    }

    /// Spherical Web Mercator (EPSG:3857) of a lon/lat, by its formula.
    static func webMercator(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
        let radius = 6_378_137.0
        return (radius * lon * .pi / 180, radius * log(tan(.pi / 4 + lat * .pi / 360)))
    }
}

/// A fresh directory, removed when released.
private final class Scratch {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("identify-tests-\(UUID().uuidString)").path
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
}

private struct FixedTarget: ControlTarget {
    func setFilter(_ filter: StreamFilter) async -> FilterOutcome { FilterOutcome(result: .rejected, requested: filter, error: "not here") }
    func sourceStatus() async -> any SourceStatus { FixedSourceStatus(.connection(.connected)) }
}

private let schema = Schema(fields: [Field(name: "id", type: .string)], trackIDField: "id")

/// A pipeline with session rasters, an optional enricher, a runtime and a command handler, as a session wires them.
private struct Harness {
    let clock = ManualClock()
    let pipeline: StreamPipeline
    let subscriber: Subscriber
    let runtime: AnalysisRuntime
    let handler: ControlCommandHandler
    let running: Task<Void, Never>

    init(rasters: SessionRasters, enrich: [String] = []) async throws {
        pipeline = StreamPipeline(purgeOptions: PurgeOptions(maximumDuration: 0, maximumObservations: 0), clock: clock)
        await pipeline.store.enrich(with: try await rasters.enricher(names: enrich))
        subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.analysis, .response, .observation, .entityReceived, .error]), clock: clock)
        await pipeline.bus.subscribe(subscriber)
        var environment = AnalysisEnvironment(store: pipeline.store, streamStatus: { .connection(.connected) }, clock: clock)
        environment[SessionRasters.self] = rasters
        runtime = AnalysisRuntime(environment: environment) { [pipeline] in await pipeline.publish($0) }
        let runtime = self.runtime
        running = Task { await runtime.run() }
        handler = ControlCommandHandler(session: ControlSession(pipeline: pipeline, target: FixedTarget(), runtime: runtime))
        await pipeline.schemaChanged(schema)
    }

    /// Everything published until the marker sent after what was handed over so far.
    func settle() async -> [StreamEvent] {
        await pipeline.publish(StreamEvent(time: 0, payload: .response(ControlResponse(id: .string("settle"), command: "settle", ok: true))))
        var events: [StreamEvent] = []
        while let batch = await subscriber.next() {
            for event in batch {
                if case .response(let response) = event.payload, response.id == .string("settle") { return events }
                events.append(event)
            }
        }
        return events
    }

    /// Sends a command and collects its events until its final line (or its refusal).
    func run(_ line: String) async -> [StreamEvent] {
        _ = await settle()
        await handler.handle(line: Array(line.utf8))
        var events: [StreamEvent] = []
        while let batch = await subscriber.next() {
            events += batch
            if events.contains(where: { event in
                if case .analysis(let analysis) = event.payload { return analysis.phase.isFinal }
                return event.kind == .response
            }) { break }
        }
        return events
    }

    func close() async {
        await runtime.close()
        await running.value
        await pipeline.close()
    }
}

private func analyses(_ events: [StreamEvent]) -> [AnalysisEvent] {
    events.compactMap { event in
        if case .analysis(let analysis) = event.payload { return analysis }
        return nil
    }
}

private func responses(_ events: [StreamEvent]) -> [ControlResponse] {
    events.compactMap { event in
        if case .response(let response) = event.payload { return response }
        return nil
    }
}

private func openRasters(_ scratch: Scratch) throws -> SessionRasters {
    let path = scratch.file("dem.tif")
    try TestRaster.write(to: path)
    return try SessionRasters.open([("dem", path)])
}

@Suite("identify and --enrich on a running pipeline", .bounded)
struct IdentifyRasterTests {
    /// The identify command answers a WGS84 point with its cell's value, column and row, and the cell's extent as a closed polygon.
    @Test func onePoint() async throws {
        let scratch = try Scratch()
        let harness = try await Harness(rasters: try openRasters(scratch))
        let center = TestRaster.center(5, 4)
        let events = analyses(await harness.run(#"{"id":5,"command":"identify","raster":"dem","x":\#(center.x),"y":\#(center.y),"sr":4326}"#))
        #expect(events.map(\.phase) == [.accepted, .result, .summary])
        let feature = try #require(events[1].feature)
        #expect(feature.attributes["Band_0"] == .double(try #require(TestRaster.value(5, 4))))
        #expect(feature.attributes["Pixel.Type"] == .string("float32"))
        #expect(feature.attributes["column"] == .int(5) && feature.attributes["row"] == .int(4))
        let xmin = TestRaster.originX + 5 * TestRaster.cellSize, ymax = TestRaster.originY - 4 * TestRaster.cellSize
        let (xmax, ymin) = (xmin + TestRaster.cellSize, ymax - TestRaster.cellSize)
        #expect(feature.attributes["xmin"] == .double(xmin) && feature.attributes["ymax"] == .double(ymax))
        #expect(feature.attributes["xmax"] == .double(xmax) && feature.attributes["ymin"] == .double(ymin))
        typealias C = AnalysisGeometry.Coordinate
        #expect(feature.geometry == .polygon(rings: [[C(x: xmin, y: ymin), C(x: xmin, y: ymax), C(x: xmax, y: ymax), C(x: xmax, y: ymin),
                                                      C(x: xmin, y: ymin)]], wkid: 4326))
        #expect(events[1].members["point"]?["sr"] == .int(4326))
        #expect(events[2].members["cells"] == .int(1) && events[2].members["points"] == .int(1))
        #expect(events[2].members["raster"]?["name"] == .string("dem"))
        await harness.close()
    }

    /// A points list is answered in order: a Web Mercator point, a NoData cell, the top-left corner, the right edge and a point outside.
    @Test func pointsInOrder() async throws {
        let scratch = try Scratch()
        let harness = try await Harness(rasters: try openRasters(scratch))
        let (lon, lat) = TestRaster.center(6, 1)
        let mercator = TestRaster.webMercator(lon, lat)
        let noData = TestRaster.center(3, 2)
        let line = #"{"id":"p","command":"identify","points":[{"x":\#(mercator.x),"y":\#(mercator.y),"sr":102100,"id":"m"},"#
            + #"{"x":\#(noData.x),"y":\#(noData.y)},{"x":-112,"y":40.75},{"x":-111,"y":40.5},{"x":-120,"y":10}],"sr":4326}"#
        let events = analyses(await harness.run(line))
        let results = events.filter { $0.phase == .result }
        try #require(results.count == 5)
        let first = try #require(results.first?.feature)
        #expect(first.attributes["Band_0"] == .double(try #require(TestRaster.value(6, 1))))
        #expect(results[0].members["point"]?["sr"] == .int(3857) && results[0].members["point"]?["id"] == .string("m"))
        // The extent comes back in Web Mercator: the corners by the formula.
        let lower = TestRaster.webMercator(-112 + 6 * 0.125, 40.75 - 2 * 0.125), upper = TestRaster.webMercator(-112 + 7 * 0.125, 40.75 - 0.125)
        let xmin = try #require(first.attributes["xmin"]?.doubleValue), ymax = try #require(first.attributes["ymax"]?.doubleValue)
        #expect(abs(xmin - lower.x) < 1e-6 && abs(ymax - upper.y) < 1e-6)
        let nodata = try #require(results[1].feature)
        #expect(nodata.attributes["Band_0"] == .null && nodata.attributes["NoData"] == .bool(true))
        #expect(nodata.attributes["column"] == .int(3) && nodata.attributes["row"] == .int(2))
        #expect(results[2].feature?.attributes["column"] == .int(0) && results[2].feature?.attributes["row"] == .int(0))
        for outside in results[3...] {
            #expect(outside.members["cell"] == .null && outside.members.keys.contains("cell"))
            if case .point(let point)? = outside.feature?.geometry { #expect(point.wkid == 4326) } else { Issue.record("no point geometry") }
        }
        let summary = try #require(events.last)
        #expect(summary.members["cells"] == .int(3) && summary.members["noData"] == .int(1) && summary.members["noCell"] == .int(2))
        await harness.close()
    }

    /// Bad commands are refused with a response naming the problem (a spatial reference PROJ does not know
    /// among them); a point PROJ cannot transform is answered with an error, and the job goes on.
    @Test func badCommands() async throws {
        let scratch = try Scratch()
        let harness = try await Harness(rasters: try openRasters(scratch))
        let refusals: [(String, String)] = [
            (#"{"id":1,"command":"identify","raster":"nope","x":1,"y":2}"#, "no raster is named 'nope'"),
            (#"{"id":2,"command":"identify","raster":"dem"}"#, "\"x\" and \"y\""),
            (#"{"id":3,"command":"identify","x":1,"y":2,"points":[]}"#, "not both"),
            (#"{"id":4,"command":"identify","x":"a","y":2}"#, "\"x\" must be a finite number"),
            (#"{"id":5,"command":"identify","x":1,"y":2,"sr":-3}"#, "WKID"),
            (#"{"id":5,"command":"identify","x":1,"y":2,"inSR":999999}"#, "unknown spatial reference wkid 999999"),
            (#"{"id":5,"command":"identify","x":1,"y":2,"outSR":"bogus"}"#, "\"outSR\""),
            (#"{"id":5,"command":"identify","points":[{"x":1,"y":2,"sr":999999}]}"#, "points[0]: \"sr\": unknown spatial reference wkid 999999"),
            (#"{"id":6,"command":"identify","points":[{"x":1}]}"#, "points[0]: missing \"y\""),
            (#"{"id":7,"command":"identify","points":[{"x":1,"y":2,"z":3}]}"#, "unknown member 'z'"),
            (#"{"id":8,"command":"identify","x":1,"y":2,"band":1}"#, "unknown member 'band'"),
        ]
        for (line, message) in refusals {
            let answer = responses(await harness.run(line))
            #expect(answer.count == 1 && answer.first?.ok == false && answer.first?.error?.contains(message) == true, "\(line): \(answer)")
        }
        let events = analyses(await harness.run(#"{"id":9,"command":"identify","points":[{"x":1e30,"y":1e30,"inSR":32612},{"x":-111.5,"y":40.5}]}"#))
        let results = events.filter { $0.phase == .result }
        try #require(results.count == 2, "\(events)")
        #expect(results[0].members["error"]?.stringValue?.contains("cannot be transformed") == true && results[0].feature == nil)
        #expect(results[1].feature?.attributes["Band_0"] != nil)
        #expect(events.last?.members["errors"] == .int(1))
        await harness.close()
    }

    /// With an enricher, the observation and entity-received events carry the cell under each point (WGS84, Web Mercator,
    /// outside, NoData, no geometry), exactly the values the test wrote.
    @Test func enrichmentOnIngest() async throws {
        let scratch = try Scratch()
        let harness = try await Harness(rasters: try openRasters(scratch), enrich: ["dem"])
        var expected: [String: Double?] = [:]   // track → Band_0 (nil: NoData); absent: a null cell
        var messages: [StreamMessage] = []
        for row in 0..<TestRaster.height {
            for column in 0..<TestRaster.width {
                let center = TestRaster.center(column, row)
                let track = "c\(column)r\(row)"
                let point = row % 2 == 0 ? Point(x: center.x, y: center.y, wkid: 4326)
                    : { let m = TestRaster.webMercator(center.x, center.y); return Point(x: m.x, y: m.y, wkid: 102100) }()
                messages.append(.observation(Observation(geometry: point, attributes: [.string(track)], receivedAt: 0)))
                expected[track] = .some(TestRaster.value(column, row))
            }
        }
        messages.append(.observation(Observation(geometry: Point(x: -120, y: 40, wkid: 4326), attributes: [.string("outside")], receivedAt: 0)))
        messages.append(.observation(Observation(geometry: Point(x: -111, y: 40.5), attributes: [.string("right-edge")], receivedAt: 0)))
        messages.append(.observation(Observation(geometry: nil, attributes: [.string("no-geometry")], receivedAt: 0)))
        await harness.pipeline.receive(messages)
        let events = await harness.settle()
        let observations = events.filter { $0.kind == .observation || $0.kind == .entityReceived }
        #expect(observations.count == 2 * messages.count)
        for event in observations {
            guard case .string(let track)? = event.entity?.trackID else { continue }
            let cell = try #require(event.enrichment?.raster["dem"], "\(track)")
            if let value = expected[track] {
                if let value {
                    #expect(cell["Band_0"] == .double(value) && cell["Pixel.Type"] == .string("float32"), "\(track)")
                } else {
                    #expect(cell["Band_0"] == .null && cell["NoData"] == .bool(true), "\(track)")
                }
            } else {
                #expect(cell == .null, "\(track)")
            }
        }
        #expect(!events.contains { $0.kind == .error })
        await harness.close()
    }

    /// Points in a spatial reference PROJ does not know get null cells, and the batch reports it once as a counted error.
    @Test func enrichmentProblemsAreReported() async throws {
        let scratch = try Scratch()
        let harness = try await Harness(rasters: try openRasters(scratch), enrich: ["dem"])
        let messages: [StreamMessage] = (0..<5).map { index in
            .observation(Observation(geometry: Point(x: 1, y: 2, wkid: 999_999), attributes: [.string("t\(index)")], receivedAt: 0))
        }
        await harness.pipeline.receive(messages)
        await harness.pipeline.receive(messages)
        let events = await harness.settle()
        let errors = events.compactMap { event -> StreamErrorReport? in
            if case .error(let report) = event.payload { return report }
            return nil
        }
        #expect(errors.count == 2)
        #expect(errors.map(\.count) == [1, 2] && errors.allSatisfy { $0.source == .store && $0.message.contains("5 observations") && $0.message.contains("999999") })
        #expect(events.filter { $0.kind == .observation }.allSatisfy { $0.enrichment?.raster["dem"] == .null })
        await harness.close()
    }

    /// Opening names the raster that failed; enriching needs a raster that exists and can place WGS84 points.
    @Test func openingAndEnrichingFailClearly() async throws {
        let scratch = try Scratch()
        let text = scratch.file("text.tif")
        try "not a tiff".write(toFile: text, atomically: true, encoding: .utf8)
        #expect(throws: SessionRasterError.self) { try SessionRasters.open([("dem", text)]) }
        do { _ = try SessionRasters.open([("dem", text)]) } catch {
            #expect(error.description.hasPrefix("--raster dem:") && error.description.contains("not a TIFF") && !error.isUsageError)
        }
        // A missing file is a runtime failure (exit 1), not a usage error.
        do { _ = try SessionRasters.open([("dem", scratch.file("missing.tif"))]) } catch { #expect(!error.isUsageError) }
        let bare = scratch.file("bare.tif")
        try GeoTIFFWriter.write(RasterImage(width: 2, height: 2, pixelType: .uint8, values: [1, 2, 3, 4]), to: bare)
        let rasters = try SessionRasters.open([("bare", bare)])
        do { _ = try await rasters.enricher(names: ["bare"]); Issue.record("enriching with an ungeoreferenced raster") } catch {
            #expect(error.description.contains("--enrich bare") && error.description.contains("georeferencing"))
        }
        do { _ = try await rasters.enricher(names: ["dem"]); Issue.record("enriching with an unknown raster") } catch {
            #expect(error.isUsageError && error.description.contains("open: bare"))
        }
        // Identify on the ungeoreferenced raster fails the job with the reason.
        let harness = try await Harness(rasters: rasters)
        let events = analyses(await harness.run(#"{"id":1,"command":"identify","x":0.5,"y":0.5}"#))
        #expect(events.last?.phase == .failed && events.last?.members["error"]?.stringValue?.contains("no georeferencing") == true)
        await harness.close()
    }
}
