import EntityStreamCore
import Glibc
import StreamSimulator
import EntityStreamTestSupport
import Testing

/// The simulator refuses bad options, names given twice and unreadable files by case, with the values
/// that name the problem; the texts users read are checked once here.
@Suite("Simulator errors by case", .bounded)
struct SimulatorErrorTests {
    @Test func optionsAreRefusedByCase() {
        let fleet = FleetConfiguration()
        // --service reads NAME= as --layer and --hotspots do, in their words.
        let syntax = #expect(throws: SimulatorError.specificationSyntax(flag: "--service", what: "FILE or fleet:N", text: "plows")) {
            try ServiceSpecification.parse("plows", fleet: fleet)
        }
        #expect(syntax?.description == "--service expects NAME=FILE or fleet:N, not 'plows'")
        let name = #expect(throws: SimulatorError.specificationName(flag: "--service", name: "a b")) { try ServiceSpecification.parse("a b=fleet:2", fleet: fleet) }
        #expect(name?.description == "--service name 'a b' must be letters, digits, '_' or '-'")
        let empty = #expect(throws: SimulatorError.specificationValueMissing(flag: "--service", name: "plows", what: "FILE or fleet:N")) {
            try ServiceSpecification.parse("plows=", fleet: fleet)
        }
        #expect(empty?.description == "--service plows= needs a FILE or fleet:N")
        #expect(throws: SimulatorError.fleetSize(name: "plows", spec: "fleet:0")) { try ServiceSpecification.parse("plows=fleet:0", fleet: fleet) }
        #expect(throws: SimulatorError.fleetSize(name: "plows", spec: "fleet:x")) { try ServiceSpecification.parse("plows=fleet:x", fleet: fleet) }
        #expect(throws: SimulatorError.specificationSyntax(flag: "--layer", what: "FILE", text: "roads")) { try LayerSpecification.parse("roads") }
        #expect(throws: SimulatorError.specificationName(flag: "--hotspots", name: "a/b")) { try HotSpotServiceSpecification.parse("a/b=calls.csv") }
        #expect(throws: SimulatorError.specificationValueMissing(flag: "--layer", name: "roads", what: "FILE")) { try LayerSpecification.parse("roads=") }
        #expect(throws: SimulatorError.closeCode("1006")) { try FaultPlan.parseCloseCode("1006") }
        #expect(throws: SimulatorError.closeReasonTooLong) { try FaultPlan.parseCloseCode("4000:" + String(repeating: "x", count: 124)) }
        #expect(throws: SimulatorError.corsOriginsEmpty) { try CORSPolicy.parse(",") }
    }

    /// What a good --service value reads as: a fleet of N of the configured fleet, or a file that a
    /// track mapping makes a CSV of tracks (a .json file stays a recording, a fleet stays a fleet).
    @Test func servicesAreParsed() throws {
        var fleet = FleetConfiguration()
        fleet.seed = 7
        var expected = fleet
        expected.vehicles = 25
        #expect(try ServiceSpecification.parse("plows=fleet:25", fleet: fleet) == ServiceSpecification(name: "plows", source: .fleet(expected)))
        let vessels = try ServiceSpecification.parse("Vessels=a=b.json", fleet: fleet)
        #expect(vessels == ServiceSpecification(name: "Vessels", source: .recording(path: "a=b.json")))
        let mapping = CSVColumnMapping(id: "id", time: "t", x: "lon", y: "lat")
        #expect(vessels.mappingCSV(mapping) == vessels)
        #expect(try ServiceSpecification.parse("Ships=ships.csv", fleet: fleet).mappingCSV(mapping)
                == ServiceSpecification(name: "Ships", source: .csv(path: "ships.csv", mapping: mapping)))
        #expect(try ServiceSpecification.parse("Ships=ships.csv", fleet: fleet).mappingCSV(nil)
                == ServiceSpecification(name: "Ships", source: .recording(path: "ships.csv")))
        #expect(try ServiceSpecification.parse("plows=fleet:25", fleet: fleet).mappingCSV(mapping) == ServiceSpecification(name: "plows", source: .fleet(expected)))
    }

    @Test func configurationValuesAreBounded() {
        var configuration = SimulatorConfiguration()
        configuration.pacing.speed = 0
        let speed = #expect(throws: SimulatorError.speed(0)) { try configuration.validate() }
        #expect(speed?.description == "speed 0.0: a speed factor must be between 1e-06 and 1000000")
        configuration = SimulatorConfiguration()
        configuration.clientQueueBytes = 10
        #expect(throws: SimulatorError.clientQueue(bytes: 10)) { try configuration.validate() }
        configuration = SimulatorConfiguration()
        configuration.faults.expireTokenAfterSeconds = 0
        #expect(throws: SimulatorError.tokenExpiry(seconds: 0)) { try configuration.validate() }
    }

    /// Refused before any socket is opened: nothing to serve, a name given twice, a recording that is not there.
    @Test func startRefusesByCase() async {
        await #expect(throws: SimulatorError.nothingToServe) { _ = try await SimulatorServer.start(SimulatorConfiguration()) }
        var twice = SimulatorConfiguration()
        twice.services = [ServiceSpecification(name: "plows", source: .fleet(FleetConfiguration(vehicles: 2))),
                          ServiceSpecification(name: "plows", source: .fleet(FleetConfiguration(vehicles: 3)))]
        await #expect(throws: SimulatorError.serviceGivenTwice("plows")) { _ = try await SimulatorServer.start(twice) }
        let missing = "/no/such/recording.jsonl"
        let error = #expect(throws: SimulatorError.recording(path: missing, .unreadable(path: missing, errno: ENOENT))) {
            _ = try SimulatedService.load(ServiceSpecification(name: "r", source: .recording(path: missing)), trackIDField: nil)
        }
        #expect(error?.description == "cannot read '/no/such/recording.jsonl': No such file or directory")
    }
}
