import EntityStreamTestSupport
import EntityStreamCore
import Foundation
import StreamSimulator
import Testing
import EntityStreamModel

/// Real recordings from the shared data folder (skipped when absent).
@Suite("CSVTrackRecording on real files", .bounded)
struct CSVTrackRealDataTests {
    static let capMetroMapping = CSVColumnMapping(id: "vehicle_id", time: "timestamp", x: "longitude", y: "latitude")

    /// CapMetro: 24,490 fixes of 152 vehicles, typed schema, times read with their -06:00 offset, sorted.
    @Test(.enabled(if: SharedData.has(SharedData.capMetro),
                   "shared data absent: set ENTITYSTREAM_SHARED_DATA or provide ../shared/data"))
    func capMetro() throws {
        let recording = try CSVTrackRecording(csv: try SharedData.text(SharedData.capMetro),
                                              mapping: try CSVColumnMapping(parsing: "id=vehicle_id,time=timestamp,x=longitude,y=latitude"))
        let schema = recording.schema
        #expect(schema.fields.map(\.name) == ["vehicle_id", "timestamp", "speed", "route_id", "trip_id", "trip_headsign"])
        #expect(schema.fields.map(\.type) == [.integer, .date, .double, .integer, .integer, .string])
        #expect(schema.trackIDField?.name == "vehicle_id")
        #expect(recording.timeFieldIndex == 1)

        let observations = recording.observations
        #expect(observations.count == 24_490)
        #expect(Set(observations.map { $0.attribute(0) }).count == 152)
        // 2016-11-24T00:00:01-06:00 … 2016-11-24T23:57:40-06:00
        #expect(observations.first?.receivedAt == 1_479_967_201_000)
        #expect(observations.last?.receivedAt == 1_480_053_460_000)
        for (a, b) in zip(observations, observations.dropFirst()) { #expect(a.receivedAt <= b.receivedAt) }
        for observation in observations {
            #expect(observation.attribute(1) == .date(milliseconds: observation.receivedAt))
            #expect(observation.geometry?.wkid == 4326)
        }
        // The file's first row: 2228,2016-11-24T00:00:51-06:00,12.96416,1,1669531,30.20585,-97.774315,…
        let first = try #require(observations.first { $0.receivedAt == 1_479_967_251_000 && $0.attribute(0) == .int(2228) })
        #expect(first.geometry == Point(x: -97.774315, y: 30.20585, wkid: 4326))
        #expect(first.attributes == [.int(2228), .date(milliseconds: 1_479_967_251_000), .double(12.96416),
                                     .int(1), .int(1_669_531), .string("1-Metric/South Congress-SB")])
        // 54 rows have an empty trip_headsign.
        #expect(observations.filter { $0.attribute(5) == .null }.count == 54)
    }

    /// Liverpool: 1,533 quoted-field fixes, "YYYY-MM-DD HH:MM:SS" read as UTC, empty bearings null.
    @Test(.enabled(if: SharedData.has(SharedData.liverpool),
                   "shared data absent: set ENTITYSTREAM_SHARED_DATA or provide ../shared/data"))
    func liverpool() throws {
        let recording = try CSVTrackRecording(csv: try SharedData.text(SharedData.liverpool),
                                              mapping: Self.capMetroMapping)
        let schema = recording.schema
        #expect(schema.fields.map(\.name) == ["id", "vehicle_id", "trip_id", "timestamp", "bearing", "origin",
                                              "destination", "route_name", "direction", "operator"])
        #expect(schema.fields.map(\.type) == [.integer, .integer, .integer, .date, .integer, .string,
                                              .string, .integer, .string, .string])
        #expect(schema.trackIDField?.name == "vehicle_id")

        let observations = recording.observations
        #expect(observations.count == 1_533)
        let bearing = try #require(schema.index(ofField: "bearing"))
        #expect(observations.filter { $0.attribute(bearing) == .null }.count == 399)
        // 2026-01-26 15:55:12 … 18:19:36 UTC
        #expect(observations.first?.receivedAt == 1_769_442_912_000)
        #expect(observations.last?.receivedAt == 1_769_451_576_000)
        for (a, b) in zip(observations, observations.dropFirst()) { #expect(a.receivedAt <= b.receivedAt) }
        // 23811684,"4716","1091","2026-01-26 15:57:02",53.44451,-2.925173,,Queen_Square_Bus_Station,…
        let row = try #require(observations.first { $0.attribute(0) == .int(23_811_684) })
        #expect(row.receivedAt == 1_769_443_022_000)
        #expect(row.geometry == Point(x: -2.925173, y: 53.44451, wkid: 4326))
        #expect(row.attribute(1) == .int(4716))
        #expect(row.attribute(bearing) == .null)
        #expect(row.attribute(5) == .string("Queen_Square_Bus_Station"))
    }
}
