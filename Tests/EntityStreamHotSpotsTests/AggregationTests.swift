import Foundation
import Testing
import EntityStreamCore
import EntityStreamTestSupport
@testable import EntityStreamHotSpots
import EntityStreamModel

@Suite("Incident aggregation", .bounded)
struct AggregationTests {
    /// Collect Events: incidents at identical coordinates become one point with ICOUNT, at its first incident.
    @Test func collectEvents() throws {
        var input = HotSpotInput(kind: .incidents)
        var expected: [String: Int] = [:]
        var random = SplitMix64(seed: 41)
        for _ in 0..<900 {
            let x = Double(random.next(below: 40)) * 5, y = Double(random.next(below: 40)) * 5
            input.append(x: x, y: y)
            expected["\(x),\(y)", default: 0] += 1
        }
        input.append(x: nil, y: 1)
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .collectEvents, distanceBand: 30)).run(input)
        #expect(result.valueField == "ICOUNT")
        #expect(result.features.count == expected.count)
        for feature in result.features { #expect(Double(expected["\(feature.x),\(feature.y)"] ?? -1) == feature.value) }
        #expect(result.features.reduce(0) { $0 + $1.value } == 900)
        #expect(result.summary.excluded.noGeometry == 1)
        // Ordered by first incident; each names its first incident's record number.
        let records = result.features.map(\.recordNumber)
        #expect(records == records.sorted() && records.first == 0)
        for feature in result.features {
            #expect(input.x[Int(feature.recordNumber)] == feature.x && input.y[Int(feature.recordNumber)] == feature.y)
        }
    }

    static let burglary = "incidents/portland_nij_cfs_burglary_2012-03_2016-08.csv"

    /// Portland burglaries (State Plane feet): the default fishnet, cell size and band run, and the counts add up.
    @Test(.enabled(if: SharedData.has(burglary),
                   "shared data absent: set ENTITYSTREAM_SHARED_DATA or provide ../shared/data"))
    func portlandIncidents() throws {
        let lines = try SharedData.text(Self.burglary).split(separator: "\n", omittingEmptySubsequences: true)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let xColumn = try #require(header.firstIndex(of: "x_coordina")), yColumn = try #require(header.firstIndex(of: "y_coordina"))
        var input = HotSpotInput(kind: .incidents)
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            input.append(x: Double(fields[xColumn]), y: Double(fields[yColumn]))
        }
        #expect(input.recordCount == lines.count - 1)
        let result = try HotSpotAnalysis().run(input)
        #expect(result.features.reduce(0) { $0 + $1.value } == Double(input.count))
        #expect(result.summary.featureCount >= 30 && result.summary.distanceBand.band > 0)
        #expect(!result.summary.distanceBand.reason.isEmpty && result.fishnet!.cellSize > 0)
        #expect(result.summary.bins.hot > 0)
    }
}
