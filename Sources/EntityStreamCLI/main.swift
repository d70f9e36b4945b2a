import EntityStreamCommandLine
import EntityStream
import Foundation
import EntityStreamLocking
import EntityStreamTransport

/// `entitystream`: the command line. See `entitystream --help` and README.md.

// First thing: from here on SIGINT and SIGTERM go to the stop-signal thread, never lost (until a
// command watches them, they end the program at once with status 0), and a closed stdout or
// stderr is a failed write, never a SIGPIPE.
StopSignals.install()
signal(SIGPIPE, SIG_IGN)

/// Runs the subcommand `name` with the words after it.
func runSubcommand(_ name: String, _ arguments: inout ArgumentList) async throws -> Int32 {
    guard let subcommand = Program.subcommand(name) else {
        throw UsageError.unknownCommand(name, known: Program.names, program: arguments.program)
    }
    if subcommand.streaming { AnalysisExecutor.shared.yieldToLiveStream() }
    return try await subcommand.run(&arguments)
}

func runCommandLine(_ words: [String]) async -> Int32 {
    var arguments = ArgumentList(words)
    do {
        switch words.first {
        case nil:
            return try await runSubcommand("demo", &arguments)
        case "-h", "--help":
            print(Program.generalHelp)
            return 0
        case "--version":
            throw VersionRequested()
        case "help":
            guard words.count > 1 else {
                print(Program.generalHelp)
                return 0
            }
            guard words.count == 2, let help = Program.subcommand(words[1])?.help else {
                throw UsageError.unknownCommand(words.dropFirst().joined(separator: " "), known: Program.names, program: arguments.program, command: "help")
            }
            print(help)
            return 0
        case let word? where Program.names.contains(word):
            _ = try arguments.next()
            return try await runSubcommand(word, &arguments)
        case let word? where word.hasPrefix("-"):
            return try await runSubcommand("demo", &arguments)
        case let word?:
            return try await runSubcommand(word, &arguments)
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
