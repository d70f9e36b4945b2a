import ArgumentParsing
import EntityStream
import Foundation
import Locking
import Transport

/// `entitystream`: the command line. See `entitystream --help` and README.md.

// First thing: from here on SIGINT and SIGTERM go to the stop-signal thread, never lost (until a
// command watches them, they end the program at once with status 0), and a closed stdout or
// stderr is a failed write, never a SIGPIPE.
StopSignals.install()
signal(SIGPIPE, SIG_IGN)

let generalHelp = """
EntityStream: a headless client for ArcGIS stream services. It keeps the
moving entities (vehicles, vessels, aircraft) with their track history and
prints every event as one JSON line on stdout.

Usage:
  entitystream                      the embedded demo: a simulated snowplow fleet on loopback
  entitystream demo [options]       the same, with options (see entitystream demo --help)
  entitystream connect URL [opts]   stream a live service (…/StreamServer)
  entitystream replay FILE [opts]   replay a recording, with no network
  entitystream record URL -o FILE   record a live stream for exact replays
  entitystream serve SOURCE [opts]  re-serve a stream (URL or file) and its live store as ArcGIS
                                    services on one port, with a live map page
  entitystream consume nats://HOST:PORT/STREAM
                                    a NATS JetStream stream (filled by --publish) as the source
  entitystream fleet nats://HOST:PORT/GROUP REQUEST --expect N
                                    statistics merged across the consumers of a fleet group
  entitystream query LAYER|FILE     query a feature layer or a file (time extent, where, …)
  entitystream statistics LAYER|FILE --stat TYPE:FIELD
                                    grouped statistics of a feature layer or a file
  entitystream hotspots FILE|TASK   hot spots (Getis-Ord Gi*) of a file, or a geoprocessing job
  entitystream identify RASTER.tif  the raster cell under points (--at x,y or JSON lines on stdin)

Each command has --help (or: entitystream help COMMAND); --version prints the version.
Exit status: 0 success, 2 usage error, 1 runtime failure.
"""

/// The commands, by name: each one's help, and how it runs from the words after its name.
enum Commands {
    static let names = ["demo", "connect", "replay", "consume", "fleet", "record", "serve", "query", "statistics", "hotspots", "identify"]

    /// The commands with a live stream to protect: their analyses run at a lower priority
    /// (``AnalysisExecutor/yieldToLiveStream(nice:)``); one-shot analyses run at the process's own.
    static let streaming: Set<String> = ["demo", "connect", "replay", "consume", "serve"]

    static func help(_ name: String) -> String? {
        switch name {
        case "demo": DemoCommand.help
        case "connect": ConnectCommand.help
        case "replay": ReplayCommand.help
        case "consume": ConsumeCommand.help
        case "fleet": FleetCommand.help
        case "record": RecordCommand.help
        case "serve": ServeCommand.help
        case "query": QueryCommand.help
        case "statistics": StatisticsCommand.help
        case "hotspots": HotSpotsSubcommand.help
        case "identify": IdentifyCommand.help
        default: nil
        }
    }

    static func run(_ name: String, _ arguments: inout ArgumentList) async throws -> Int32 {
        if streaming.contains(name) { AnalysisExecutor.shared.yieldToLiveStream() }
        return switch name {
        case "demo": try await DemoCommand(arguments: &arguments).run()
        case "connect": try await ConnectCommand(arguments: &arguments).run()
        case "replay": try await ReplayCommand(arguments: &arguments).run()
        case "consume": try await ConsumeCommand(arguments: &arguments).run()
        case "fleet": try await FleetCommand(arguments: &arguments).run()
        case "record": try await RecordCommand(arguments: &arguments).run()
        case "serve": try await ServeCommand(arguments: &arguments).run()
        case "query": try await QueryCommand(arguments: &arguments).run()
        case "statistics": try await StatisticsCommand(arguments: &arguments).run()
        case "hotspots": try await HotSpotsSubcommand(arguments: &arguments).run()
        case "identify": try await IdentifyCommand(arguments: &arguments).run()
        default: throw UsageError("unknown command '\(name)' (expected \(names.joined(separator: ", ")); see entitystream --help)")
        }
    }
}

func runCommandLine(_ words: [String]) async -> Int32 {
    var arguments = ArgumentList(words)
    do {
        switch words.first {
        case nil:
            return try await Commands.run("demo", &arguments)
        case "-h", "--help":
            print(generalHelp)
            return 0
        case "--version":
            throw VersionRequested()
        case "help":
            guard words.count > 1 else {
                print(generalHelp)
                return 0
            }
            guard words.count == 2, let help = Commands.help(words[1]) else {
                throw UsageError("help: unknown command '\(words.dropFirst().joined(separator: " "))' (expected \(Commands.names.joined(separator: ", ")))")
            }
            print(help)
            return 0
        case let word? where Commands.names.contains(word):
            _ = try arguments.next()
            return try await Commands.run(word, &arguments)
        case let word? where word.hasPrefix("-"):
            return try await Commands.run("demo", &arguments)
        case let word?:
            return try await Commands.run(word, &arguments)
        }
    } catch let help as HelpRequested {
        print(help.text)
        return 0
    } catch is VersionRequested {
        print(ProgramVersion.line(program: "entitystream"))
        return 0
    } catch let usage as UsageError {
        Stderr.line("entitystream: \(usage)")
        return 2
    } catch {
        Stderr.line("entitystream: \(error)")
        return 1
    }
}

MallocTuning.keepBatchBuffersInHeap()
let status = await runCommandLine(Array(CommandLine.arguments.dropFirst()))
await TransportEventLoop.shared.shutdown()
exit(status)
