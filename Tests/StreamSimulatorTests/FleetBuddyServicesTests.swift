import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel

/// A fleet simulator whose archive clock stands `runFor` ms (10 s unless told)
/// after the server's start, and the test's own expectation of the archive:
/// each vehicle's last report by then, computed here from the fleet's
/// configuration.
private struct FleetFixture {
    let server: SimulatorServer
    let configuration: FleetConfiguration
    let archiveTime: Int64

    static func start(vehicles: Int, maxRecordCount: Int = 2000, runFor: Int64 = 10_000) async throws -> FleetFixture {
        let clock = ManualClock(start: SystemClock().now() - runFor)
        let fleet = FleetConfiguration(vehicles: vehicles, seed: 11, ratePerVehicle: 10)
        let server = try await startSimulator([ServiceSpecification(name: "Plows", source: .fleet(fleet))]) {
            $0.clock = clock
            $0.maxRecordCount = maxRecordCount
        }
        clock.advance(by: runFor)
        return FleetFixture(server: server, configuration: fleet, archiveTime: clock.now())
    }

    /// Each vehicle's last report at or before `archiveTime`, by vehicle name.
    var expectedLatest: [String: Observation] {
        var fleet = SnowplowFleet.served(configuration: configuration, serverStart: server.serverStart)
        var latest: [String: Observation] = [:]
        while fleet.nextTime <= archiveTime {
            let observation = fleet.next()
            if case .string(let name) = observation.attribute(0) { latest[name] = observation }
        }
        return latest
    }

    /// The vehicle table row the README documents: depot and model year of vehicle `n`.
    static func related(_ name: String) -> (depot: String, modelYear: Int64)? {
        guard let n = Int(name.dropFirst("TRUCK ".count)) else { return nil }
        return (["North", "South", "East", "West"][(n - 1) % 4], Int64(2012 + (7 * n) % 12))
    }

    func connection(where whereClause: String? = nil, sink: RecordingSink) -> StreamServiceConnection {
        var options = StreamConnectionOptions()
        options.filter.whereClause = whereClause
        return StreamServiceConnection(serviceURL: server.serviceURL("Plows"), options: options, sink: sink)
    }
}

private func name(_ observation: Observation, _ schema: Schema) -> String {
    guard let index = schema.index(ofField: "vehiclename"), case .string(let value) = observation.attribute(index) else { return "" }
    return value
}

@Suite("Fleet archive and related features, end to end", .bounded(.io))
struct FleetBuddyServicesTests {
    /// Primed observations are exactly the archive's latest report per vehicle
    /// (paged 2 at a time, each vehicle once), come before any live message,
    /// and both they and live observations carry the vehicle table's columns.
    @Test func primesThenStreamsWithRelatedAttributes() async throws {
        let fixture = try await FleetFixture.start(vehicles: 5, maxRecordCount: 2)
        let sink = RecordingSink()
        let connection = fixture.connection(sink: sink)
        #expect(await connection.connect() == .connected)
        let snapshot = await sink.wait { $0.primed.count >= 5 && $0.observations.count >= 5 }
        let schema = try #require(snapshot.schemas.last)
        let depot = try #require(schema.index(ofField: "depot"))
        let modelYear = try #require(schema.index(ofField: "modelyear"))
        let expected = fixture.expectedLatest
        #expect(expected.count == 5)
        let primed = snapshot.primedObservations
        #expect(primed.count == 5)
        #expect(Set(primed.map { name($0, schema) }) == Set(expected.keys))
        #expect(!snapshot.primedAfterLive)
        for observation in primed {
            let want = try #require(expected[name(observation, schema)])
            #expect(Array(observation.attributes.prefix(8)) == want.attributes)
            #expect(observation.geometry?.x == want.geometry?.x && observation.geometry?.y == want.geometry?.y)
        }
        for observation in primed + snapshot.observations {
            let related = try #require(FleetFixture.related(name(observation, schema)))
            #expect(observation.attribute(depot) == .string(related.depot))
            #expect(observation.attribute(modelYear) == .int(related.modelYear))
        }
        #expect(snapshot.errors.isEmpty)
        await connection.disconnect()
        await fixture.server.shutdown()
    }

    /// A served fleet is on the road before its server starts: queried at the
    /// server's very first instant, the archive already holds every vehicle
    /// once, each at its report from the period before the start.
    @Test func archiveHoldsTheWholeFleetFromTheStart() async throws {
        let fixture = try await FleetFixture.start(vehicles: 6, runFor: 0)
        let expected = fixture.expectedLatest
        #expect(Set(expected.keys) == Set((1...6).map { "TRUCK \($0)" }))
        #expect(expected.values.allSatisfy { $0.receivedAt <= fixture.server.serverStart })
        let sink = RecordingSink()
        let connection = fixture.connection(sink: sink)
        #expect(await connection.connect() == .connected)
        let snapshot = await sink.wait { $0.primed.count >= 6 }
        let schema = try #require(snapshot.schemas.last)
        let primed = snapshot.primedObservations
        #expect(primed.map { name($0, schema) } == (1...6).map { "TRUCK \($0)" })
        for observation in primed {
            #expect(Array(observation.attributes.prefix(8)) == expected[name(observation, schema)]?.attributes)
        }
        await connection.disconnect()
        await fixture.server.shutdown()
    }

    /// The connection's where clause applies to the archive query: only the matching vehicle is primed.
    @Test func whereClauseFiltersTheArchive() async throws {
        let fixture = try await FleetFixture.start(vehicles: 4)
        let sink = RecordingSink()
        let connection = fixture.connection(where: "vehiclename = 'TRUCK 3'", sink: sink)
        #expect(await connection.connect() == .connected)
        let snapshot = await sink.wait { !$0.primed.isEmpty && $0.observations.count >= 2 }
        let schema = try #require(snapshot.schemas.last)
        let primed = snapshot.primedObservations
        #expect(primed.count == 1)
        #expect(primed.map { name($0, schema) } == ["TRUCK 3"])
        #expect(primed.first.map { Array($0.attributes.prefix(8)) } == fixture.expectedLatest["TRUCK 3"]?.attributes)
        #expect(snapshot.observations.allSatisfy { name($0, schema) == "TRUCK 3" })
        await connection.disconnect()
        await fixture.server.shutdown()
    }

    /// Every vehicle is primed once when the archive and the vehicle table page 3 rows at a time.
    @Test func pagingReturnsEveryRowOnce() async throws {
        let fixture = try await FleetFixture.start(vehicles: 7, maxRecordCount: 3)
        let sink = RecordingSink()
        let connection = fixture.connection(sink: sink)
        #expect(await connection.connect() == .connected)
        let snapshot = await sink.wait { $0.primed.count >= 7 }
        let schema = try #require(snapshot.schemas.last)
        let names = snapshot.primedObservations.map { name($0, schema) }
        #expect(names.count == 7)
        #expect(Set(names) == Set((1...7).map { "TRUCK \($0)" }))
        #expect(await connection.primedObservationCount == 7)
        let depot = try #require(schema.index(ofField: "depot"))
        #expect(snapshot.primedObservations.allSatisfy { !$0.attribute(depot).isNull })
        await connection.disconnect()
        await fixture.server.shutdown()
    }

    /// An archive that cannot be queried is an `archive` error event; the stream still connects and delivers.
    @Test func failingArchiveStillStreams() async throws {
        let fixture = try await FleetFixture.start(vehicles: 2)
        let base = fixture.server.httpBase
        // A stream service whose archive names a layer the simulator does not serve.
        let service = try await ScriptedStreamService.start(
            description: { request in
                var text = ScriptedStreamService.descriptionJSON(socketBase: request.socketBase)
                text.removeFirst()
                return HTTPServerResponse(text: "{\"keepLatestArchive\":{\"featuresUrl\":\"\(base)/arcgis/rest/services/Missing/FeatureServer/0\"}," + text)
            },
            socket: { _, _ in
                .accept { socket in
                    try? await socket.send(ScriptedStreamService.feature("TRUCK 1", speed: 10))
                    _ = await socket.closed()
                }
            })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: StreamConnectionOptions(), sink: sink)
        #expect(await connection.connect() == .connected)
        let snapshot = await sink.wait { $0.observations.count >= 1 }
        #expect(snapshot.primed.isEmpty)
        let error = try #require(snapshot.errors.first { $0.source == .archive })
        #expect(error.message.contains("priming from keepLatestArchive failed"))
        #expect(error.message.contains("Missing"))
        await connection.disconnect()
        await service.shutdown()
        await fixture.server.shutdown()
    }
}
