import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import StreamSimulator
import EntityStreamAnalyses

/// `entitystream` with no arguments (or `entitystream demo`): the embedded
/// demo. Starts the simulator in-process with the snowplow fleet on a free
/// loopback port and connects to it over a real WebSocket with the settings
/// of Esri's "Add dynamic entity layer" sample (`speed > 0`, 300 s maximum
/// duration), printing JSON lines until interrupted or `--limit`.
struct DemoCommand: RunnableCommand {
    var stream = StreamOptions()
    var fleet = FleetConfiguration(vehicles: 25)

    static let help = """
    Usage: entitystream [demo] [options]

    The embedded demo: a simulated fleet of snowplows near Sandy, Utah, served by
    the built-in stream-service simulator on a free loopback port, streamed through
    the same connection, store and output as a live service, with the settings of
    Esri's sample: --where "speed > 0" --max-duration 300.

    Unlike connect, the demo's --where defaults to "speed > 0" and its
    --max-duration to 300 seconds (not off); --where "1=1" and
    --max-duration 0 turn them off.

    Options:
      --vehicles N                fleet size (default 25, at most 100000)
      --seed S                    fleet random seed (default 1)
      --rate R                    observations per second per vehicle (default 1; 0.001 to 1000)
    \(StreamOptions.help(whereDefault: "\"speed > 0\"", maxDurationDefault: "300"))
      -h, --help                  show this help
    """

    init(arguments: inout ArgumentList) throws {
        stream.filter.whereClause = "speed > 0"
        stream.purge.maximumDuration = 300
        while let word = try arguments.nextFlag() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--vehicles": fleet.vehicles = try arguments.integer(for: word, minimum: 1, maximum: 100_000)
            case "--seed": fleet.seed = try arguments.unsigned(for: word)
            case "--rate": fleet.ratePerVehicle = try arguments.number(for: word, minimum: 0.001, maximum: 1000)
            default:
                if try stream.parse(word, from: &arguments) { continue }
                throw arguments.unknownOption(word, command: "demo")
            }
        }
        try stream.validate()
    }

    func run() async throws -> Int32 {
        let rasters = try await stream.rasters.open()
        var configuration = SimulatorConfiguration()
        configuration.port = 0
        configuration.services = [ServiceSpecification(name: SnowplowFleet.serviceName, source: .fleet(fleet))]
        configuration.log = { Stderr.line("simulator: \($0)") }
        let simulator: SimulatorServer
        do { simulator = try await SimulatorServer.start(configuration) } catch {
            Stderr.line("entitystream: demo: \(error)")
            return 1
        }
        let url = simulator.serviceURL(SnowplowFleet.serviceName)
        Stderr.block("""
        entitystream demo: \(fleet.vehicles) simulated snowplows near Sandy, Utah, served on loopback at
          \(url)
        streaming JSON lines (where "\(stream.filter.whereClause ?? "1=1")", max duration \(stream.purge.maximumDuration > 0 ? "\(Int(stream.purge.maximumDuration)) s" : "off")); Ctrl-C to stop.
        For a live service:  entitystream connect https://realtimegis2016.esri.com:6443/arcgis/rest/services/SandyVehicles/StreamServer --where "speed > 0"
        """)
        var options = ConnectionOptions().connectionOptions(filter: stream.filter, trackIDField: stream.trackIDField)
        var session = StreamSession(options: stream)
        (session.rasters, session.enricher) = rasters
        if let output = stream.publish.output(defaultService: "demo", kinds: stream.events) { session.sideOutputs = [output] }
        options.clock = session.clock
        let status: Int32
        do {
            status = try await session.run { pipeline in
                LiveSource(connection: StreamServiceConnection(serviceURL: url, options: options, sink: pipeline))
            }
        } catch {
            await simulator.shutdown()
            throw error
        }
        await simulator.shutdown()
        return status
    }
}
