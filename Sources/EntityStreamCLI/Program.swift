import EntityStream
import EntityStreamAnalyses
import EntityStreamCommandLine

/// What `entitystream` is assembled from: the stream library's subcommands and
/// the analyses it offers. Each analysis brings its control commands (stdin)
/// and its one-shot subcommand (``AnalysisRegistration``); adding one is a
/// folder in `Sources/EntityStreamAnalyses/` and one line in ``analyses``.
enum Program {
    /// The analyses, in the order of the general help.
    static let analyses: [AnalysisRegistration] = [
        .query,
        .statistics,
        .hotSpots,
        .identifyRaster,
    ]

    /// The stdin commands of a running stream: the stream's own and the analyses'.
    static let controlCommands = ControlCommandRegistry(analyses: analyses)

    /// Every subcommand, in the order of the general help.
    static let subcommands: [Subcommand] = streamCommands + analyses.compactMap { $0.subcommand }

    /// The commands with a live stream (their analyses run at a lower priority:
    /// ``AnalysisExecutor/yieldToLiveStream(nice:)``; one-shot analyses run at the process's own).
    static let streamCommands: [Subcommand] = [
        Subcommand(DemoCommand.self, name: "demo", synopsis: "  entitystream demo [options]       the same, with options (see entitystream demo --help)",
                   streaming: true),
        Subcommand(name: "connect", synopsis: "  entitystream connect URL [opts]   stream a live service (…/StreamServer)",
                   help: ConnectCommand.help, streaming: true) { try await ConnectCommand(arguments: &$0).run() },
        Subcommand(name: "replay", synopsis: "  entitystream replay FILE [opts]   replay a recording, with no network",
                   help: ReplayCommand.help, streaming: true) { try await ReplayCommand(arguments: &$0).run() },
        Subcommand(RecordCommand.self, name: "record", synopsis: "  entitystream record URL -o FILE   record a live stream for exact replays"),
        Subcommand(ServeCommand.self, name: "serve",
                   synopsis: "  entitystream serve SOURCE [opts]  re-serve a stream (URL or file) and its live store as ArcGIS\n"
                       + "                                    services on one port, with a live map page",
                   streaming: true),
        Subcommand(name: "consume",
                   synopsis: "  entitystream consume nats://HOST:PORT/STREAM\n"
                       + "                                    a NATS JetStream stream (filled by --publish) as the source",
                   help: ConsumeCommand.help, streaming: true) { try await ConsumeCommand(arguments: &$0).run() },
        Subcommand(FleetCommand.self, name: "fleet",
                   synopsis: "  entitystream fleet nats://HOST:PORT/GROUP REQUEST --expect N\n"
                       + "                                    statistics merged across the consumers of a fleet group"),
    ]

    static func subcommand(_ name: String) -> Subcommand? {
        subcommands.first { $0.name == name }
    }

    static var names: [String] { subcommands.map(\.name) }

    static let generalHelp = """
    EntityStream: a headless client for ArcGIS stream services. It keeps the
    moving entities (vehicles, vessels, aircraft) with their track history and
    prints every event as one JSON line on stdout.

    Usage:
      entitystream                      the embedded demo: a simulated snowplow fleet on loopback

    """ + subcommands.map(\.synopsis).joined(separator: "\n") + """


    Each command has --help (or: entitystream help COMMAND); --version prints the version.
    Exit status: 0 success, 2 usage error, 1 runtime failure.
    """
}
