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
        let syntax = #expect(throws: SimulatorError.serviceSyntax("plows")) { try ServiceSpecification.parse("plows", csvMapping: nil, fleet: fleet) }
        #expect(syntax?.description == "--service expects NAME=FILE or NAME=fleet:N, not 'plows'")
        #expect(throws: SimulatorError.serviceName("a b")) { try ServiceSpecification.parse("a b=fleet:2", csvMapping: nil, fleet: fleet) }
        #expect(throws: SimulatorError.serviceWithoutSource(name: "plows")) { try ServiceSpecification.parse("plows=", csvMapping: nil, fleet: fleet) }
        #expect(throws: SimulatorError.fleetSize(name: "plows", spec: "fleet:0")) { try ServiceSpecification.parse("plows=fleet:0", csvMapping: nil, fleet: fleet) }
        #expect(throws: SimulatorError.specificationSyntax(flag: "--layer", what: "FILE", text: "roads")) { try LayerSpecification.parse("roads") }
        #expect(throws: SimulatorError.specificationName(flag: "--hotspots", name: "a/b")) { try HotSpotServiceSpecification.parse("a/b=calls.csv") }
        #expect(throws: SimulatorError.specificationValueMissing(flag: "--layer", name: "roads", what: "FILE")) { try LayerSpecification.parse("roads=") }
        #expect(throws: SimulatorError.closeCode("1006")) { try FaultPlan.parseCloseCode("1006") }
        #expect(throws: SimulatorError.closeReasonTooLong) { try FaultPlan.parseCloseCode("4000:" + String(repeating: "x", count: 124)) }
        #expect(throws: SimulatorError.corsOriginsEmpty) { try CORSPolicy.parse(",") }
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
