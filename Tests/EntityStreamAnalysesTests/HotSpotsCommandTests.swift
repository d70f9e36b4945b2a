import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "t", type: .date), Field(name: "speed", type: .double)],
                            trackIDField: "id", startTimeField: "t")

/// One observation: a track, a point, its time field and speed.
private struct Fix {
    var track: String
    var x: Double
    var y: Double
    var t: Int64
    var speed: Double
}

/// The shared analysis session of the test support, with this file's schema and fixes.
private typealias Harness = AnalysisHarness

extension AnalysisHarness {
    fileprivate init() async {
        await self.init(schema: schema)
    }

    fileprivate func ingest(_ fixes: [Fix], wkid: Int?) async {
        await ingest(fixes.map { fix in
            Observation(geometry: Point(x: fix.x, y: fix.y, wkid: wkid),
                        attributes: [.string(fix.track), .date(milliseconds: fix.t), .double(fix.speed)], receivedAt: clock.now())
        })
    }

    /// Sends a command and returns its events up to its final line (or its refusal).
    fileprivate func run(_ line: String) async -> [StreamEvent] {
        await command(line)
    }
}

private func analyses(_ events: [StreamEvent]) -> [AnalysisEvent] {
    AnalysisHarness.analyses(events)
}

/// The job statuses of the status lines (not the engine progress lines), in order.
private func statuses(_ events: [AnalysisEvent]) -> [String] {
    events.filter { $0.phase == .progress && $0.members["fraction"] == nil }.compactMap { $0.members["jobStatus"]?.stringValue }
}

/// Gi* by brute force, from the formula (x̄, population S, binary weights d ≤ band, self included), with
/// the two-sided normal p and the bins without FDR (99/95/90 %).
private func bruteForce(_ points: [(x: Double, y: Double)], _ values: [Double], band: Double) -> [(z: Double, p: Double, bin: Int, neighbors: Int)] {
    let n = Double(values.count)
    let mean = values.reduce(0, +) / n
    let s = (values.map { $0 * $0 }.reduce(0, +) / n - mean * mean).squareRoot()
    return points.indices.map { i in
        var w = 0.0, wx = 0.0
        for j in points.indices where hypot(points[i].x - points[j].x, points[i].y - points[j].y) <= band {
            w += 1
            wx += values[j]
        }
        let z = (wx - mean * w) / (s * ((n * w - w * w) / (n - 1)).squareRoot())
        let p = erfc(abs(z) / 2.0.squareRoot())
        let level = p < 0.01 ? 3 : p < 0.05 ? 2 : p < 0.10 ? 1 : 0
        return (z, p, z < 0 ? -level : level, Int(w) - 1)
    }
}

@Suite("hotspots over the store", .bounded)
struct HotSpotsCommandTests {
    /// Stopped observations on a 100 ft lattice (State Plane, wkid 2913) with a cluster of extra stops; moving ones elsewhere.
    fileprivate static func plows() -> [Fix] {
        var fixes: [Fix] = []
        var t: Int64 = 1_000
        for r in 0..<10 {
            for c in 0..<10 {
                let x = 7_600_000.0 + Double(c) * 100 + 20, y = 680_000.0 + Double(r) * 100 + 30
                let stops = (r >= 6 && c >= 6) ? 5 : (r + c) % 3 == 0 ? 2 : 1
                for k in 0..<stops {
                    fixes.append(Fix(track: "P\((r * 10 + c + k) % 17)", x: x + Double(k), y: y + Double(k), t: t, speed: 0))
                    t += 1
                }
                fixes.append(Fix(track: "P\(c)", x: x + 50, y: y + 50, t: t, speed: 25))
                t += 1
            }
        }
        return fixes
    }

    /// The live command counts the stopped observations of one snapshot in fishnet cells and answers one cell polygon per
    /// occupied cell with JOIN_COUNT, GiZScore, GiPValue, NNeighbors and Gi_Bin equal to a brute-force Gi*, then the summary.
    @Test func fishnetCellsAndBins() async throws {
        let harness = await Harness()
        let fixes = Self.plows()
        await harness.ingest(fixes, wkid: 2913)
        let events = analyses(await harness.run(#"{"id":4,"command":"hotspots","where":"speed = 0","cellSize":100,"distanceBand":250,"fdr":false,"aggregation":"fishnet"}"#))
        #expect(events.first?.phase == .accepted && events.last?.phase == .summary)
        #expect(statuses(events) == ["esriJobSubmitted", "esriJobExecuting", "esriJobSucceeded"])
        #expect(events.filter { $0.phase == .progress }.allSatisfy { $0.members["jobId"] == .string("local-4") })

        // Oracle: the fishnet and Gi* from the test's own points.
        let stopped = fixes.filter { $0.speed == 0 }
        let minX = stopped.map(\.x).min() ?? 0, minY = stopped.map(\.y).min() ?? 0
        var counts: [[Int]: Int] = [:]
        for fix in stopped { counts[[Int(((fix.x - minX) / 100).rounded(.down)), Int(((fix.y - minY) / 100).rounded(.down))], default: 0] += 1 }
        let cells = counts.keys.sorted { ($0[1], $0[0]) < ($1[1], $1[0]) }
        let centres = cells.map { (x: minX + (Double($0[0]) + 0.5) * 100, y: minY + (Double($0[1]) + 0.5) * 100) }
        let expected = bruteForce(centres, cells.map { Double(counts[$0] ?? 0) }, band: 250)

        let results = events.filter { $0.phase == .result }
        #expect(results.count == cells.count)
        for (index, result) in results.enumerated() where index < cells.count {
            let attributes = try #require(result.feature?.attributes)
            guard case .polygon(let rings, let wkid)? = result.feature?.geometry else { Issue.record("not a polygon"); continue }
            let x0 = minX + Double(cells[index][0]) * 100, y0 = minY + Double(cells[index][1]) * 100
            #expect(wkid == 2913)
            #expect(rings == [[(x0, y0), (x0, y0 + 100), (x0 + 100, y0 + 100), (x0 + 100, y0), (x0, y0)].map { AnalysisGeometry.Coordinate(x: $0.0, y: $0.1) }])
            #expect(attributes["JOIN_COUNT"] == .int(Int64(counts[cells[index]] ?? 0)))
            let z = try #require(attributes["GiZScore"]?.doubleValue), p = try #require(attributes["GiPValue"]?.doubleValue)
            #expect(abs(z - expected[index].z) < 1e-9 && abs(p - expected[index].p) < 1e-9)
            #expect(attributes["Gi_Bin"] == .int(Int64(expected[index].bin)))
            #expect(attributes["NNeighbors"] == .int(Int64(expected[index].neighbors)))
        }
        let summary = try #require(events.last?.members)
        #expect(summary["n"] == .int(Int64(cells.count)) && summary["matched"] == .int(Int64(stopped.count)))
        #expect(summary["distanceBand"]?["value"] == .double(250) && summary["distanceBand"]?["choice"] == .string("given"))
        #expect(summary["fdr"] == .bool(false) && summary["where"] == .string("speed = 0"))
        for bin in -3...3 {
            #expect(summary["bins"]?[String(bin)] == .int(Int64(expected.filter { $0.bin == bin }.count)))
        }
        #expect(expected.filter { $0.bin == 3 }.count > 0)
        #expect(summary["stream"]?["observations"] == .int(Int64(fixes.count)))
        await harness.close()
    }

    /// Weighted points (a value field) give one point per observation whose SOURCE_ID is that observation's id
    /// (as query-observations reports it), with Gi* equal to the brute force.
    @Test func weightedPointsKeepTheirObservation() async throws {
        let harness = await Harness()
        var fixes: [Fix] = []
        for i in 0..<40 { fixes.append(Fix(track: "T\(i % 4)", x: Double(i % 8) * 10, y: Double(i / 8) * 10, t: Int64(i), speed: Double((i * 7) % 11))) }
        await harness.ingest(fixes, wkid: 2913)
        let listed = analyses(await harness.run(#"{"id":1,"command":"query-observations"}"#)).filter { $0.phase == .result }
        var pointOf: [Int64: [Double]] = [:]
        for line in listed {
            if let id = line.members["observation"]?.intValue, case .point(let p)? = line.feature?.geometry { pointOf[id] = [p.x, p.y] }
        }
        let events = analyses(await harness.run(#"{"id":2,"command":"hotspots","valueField":"speed","distanceBand":15}"#))
        let results = events.filter { $0.phase == .result }
        #expect(results.count == 40)
        let expected = bruteForce(fixes.map { (x: $0.x, y: $0.y) }, fixes.map(\.speed), band: 15)
        for result in results {
            let attributes = try #require(result.feature?.attributes)
            let source = try #require(attributes["SOURCE_ID"]?.intValue)
            guard case .point(let point)? = result.feature?.geometry else { Issue.record("not a point"); continue }
            #expect(pointOf[source] == [point.x, point.y])
            let index = try #require(fixes.firstIndex { $0.x == point.x && $0.y == point.y })
            #expect(attributes["speed"] == .double(fixes[index].speed))
            #expect(abs((attributes["GiZScore"]?.doubleValue ?? .nan) - expected[index].z) < 1e-9)
        }
        #expect(Set(results.compactMap { $0.feature?.attributes["SOURCE_ID"]?.intValue }).count == 40)
        await harness.close()
    }

    /// WGS84 input (the live fleet) is measured in metres: a 200 m cell is about 200 m wide on the ground, its polygon in degrees.
    @Test func geographicCellsAreMetres() async throws {
        let harness = await Harness()
        var fixes: [Fix] = []
        for i in 0..<400 { fixes.append(Fix(track: "V\(i % 9)", x: -111.9 + Double(i % 20) * 0.0012, y: 40.7 + Double(i / 20) * 0.0009, t: Int64(i), speed: 0)) }
        await harness.ingest(fixes, wkid: 4326)
        let events = analyses(await harness.run(#"{"id":"g","command":"hotspots","cellSize":200,"distanceBand":450}"#))
        let summary = try #require(events.last?.members)
        #expect(summary["input"]?["coordinates"] == .string("geographic") && summary["input"]?["linearUnit"] == .string("metres"))
        #expect(summary["outputWKID"] == .int(4326))
        let result = try #require(events.first { $0.phase == .result })
        guard case .polygon(let rings, let wkid)? = result.feature?.geometry else { Issue.record("not a polygon"); return }
        #expect(wkid == 4326)
        // Haversine on a 6,371,008.8 m sphere (the mean radius): within 0.5 % of the ellipsoidal chord at this latitude.
        func metres(_ a: AnalysisGeometry.Coordinate, _ b: AnalysisGeometry.Coordinate) -> Double {
            let r = 6_371_008.8, f1 = a.y * .pi / 180, f2 = b.y * .pi / 180
            let h = pow(sin((f2 - f1) / 2), 2) + cos(f1) * cos(f2) * pow(sin((b.x - a.x) * .pi / 360), 2)
            return 2 * r * asin(h.squareRoot())
        }
        let ring = rings[0]
        #expect(abs(metres(ring[0], ring[1]) - 200) < 1 && abs(metres(ring[1], ring[2]) - 200) < 1)
        let counted = events.filter { $0.phase == .result }.compactMap { $0.feature?.attributes["JOIN_COUNT"]?.intValue }.reduce(0, +)
        #expect(counted == 400)
        await harness.close()
    }

    /// Too few incidents end the job esriJobFailed with the engine's reason as an error message, and the analysis failed.
    @Test func tooFewIncidentsFail() async throws {
        let harness = await Harness()
        await harness.ingest((0..<10).map { Fix(track: "A", x: Double($0), y: 0, t: Int64($0), speed: 0) }, wkid: 2913)
        let events = analyses(await harness.run(#"{"id":5,"command":"hotspots"}"#))
        #expect(events.map(\.phase).last == .failed)
        #expect(events.last?.members["error"]?.stringValue?.contains("at least 60 incidents; there are 10") == true)
        #expect(statuses(events) == ["esriJobSubmitted", "esriJobExecuting", "esriJobFailed"])
        let failedLine = try #require(events.last { $0.members["jobStatus"] == .string("esriJobFailed") })
        #expect(failedLine.members["messages"]?.arrayValue?.contains { $0["type"] == .string("esriJobMessageTypeError") } == true)
        await harness.close()
    }

    /// The cancel command stops a running analysis: esriJobCancelling, esriJobCancelled, then the cancelled line.
    @Test func cancelStopsTheEngine() async throws {
        let harness = await Harness()
        var fixes: [Fix] = []
        // Enough incidents that the engine runs for seconds in a debug build: the cancel, sent right after,
        // reaches it while it computes even when the test threads are slowed by a loaded machine.
        for i in 0..<120_000 { fixes.append(Fix(track: "T\(i % 50)", x: Double(i % 347) * 37 + Double(i % 7), y: Double(i / 347) * 41, t: Int64(i), speed: 0)) }
        await harness.ingest(fixes, wkid: 2913)
        await harness.settle()
        await harness.handler.handle(line: Array(#"{"id":"big","command":"hotspots"}"#.utf8))
        await harness.handler.handle(line: Array(#"{"id":"stop","command":"cancel","job":"big"}"#.utf8))
        func responses(_ events: [StreamEvent]) -> [ControlResponse] {
            events.compactMap { event -> ControlResponse? in if case .response(let r) = event.payload { return r }; return nil }
        }
        var events: [StreamEvent] = []
        // The cancel command's answer and the job's last line come on the bus in either order.
        while !(analyses(events).contains(where: { $0.phase.isFinal }) && responses(events).contains { $0.id == .string("stop") }),
              let batch = await harness.subscriber.next() { events += batch }
        let lines = analyses(events)
        #expect(lines.last?.phase == .cancelled)
        #expect(statuses(lines).suffix(2) == ["esriJobCancelling", "esriJobCancelled"])
        #expect(!lines.contains { $0.phase == .result })
        #expect(responses(events).contains { $0.id == .string("stop") && $0.ok })
        await harness.close()
    }

    /// Mistakes in the command are refused at once, naming the member.
    @Test(arguments: [
        (#"{"id":1,"command":"hotspots","valueField":"speed","cellSize":50}"#, "valueField"),
        (#"{"id":1,"command":"hotspots","aggregation":"hexagon"}"#, "aggregation"),
        (#"{"id":1,"command":"hotspots","aggregation":"collect","cellSize":10}"#, "cellSize"),
        (#"{"id":1,"command":"hotspots","cellSize":-3}"#, "cellSize"),
        (#"{"id":1,"command":"hotspots","query":"1=1"}"#, "task"),
        (#"{"id":1,"command":"hotspots","task":"http://127.0.0.1:9/arcgis/rest/services/X/GPServer/T","cellSize":5}"#, "cellSize"),
        (#"{"id":1,"command":"hotspots","task":"http://127.0.0.1:9/arcgis/rest/services/X/GPServer/T","timeExtent":{"start":0,"end":null}}"#, "both ends"),
        (#"{"id":1,"command":"hotspots","where":"speed = = 0"}"#, "where"),
        (#"{"id":1,"command":"hotspots","band":5}"#, "band"),
    ])
    func refusedCommands(line: String, mention: String) async throws {
        let harness = await Harness()
        let events = await harness.run(line)
        guard case .response(let response)? = events.last?.payload else { Issue.record("no response"); return }
        #expect(!response.ok)
        #expect(response.error?.contains(mention) == true, "\(response.error ?? "")")
        await harness.close()
    }
}
