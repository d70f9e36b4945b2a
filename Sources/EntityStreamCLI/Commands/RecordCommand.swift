import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamModel

/// `entitystream record URL -o FILE`: save a live stream with its service
/// description and every message's receive time, for exact replays.
///
/// Writes FILE.partial and renames it onto FILE when recording ends having
/// recorded a header (see ``PartialRecordingFile``); keeps recording when
/// stdout closes (see ``RecordingSink``). Exit status 0, or 1 when the
/// connection failed, the file could not be written, or it could not be
/// created or renamed.
struct RecordCommand: RunnableCommand {
    var serviceURL = ""
    var outputPath = ""
    var limit: Int?
    var durationSeconds: Double?
    var stream = StreamOptions()
    var connection = ConnectionOptions()

    static let help = """
    Usage: entitystream record URL -o FILE [options]

    Connects like `connect` and writes every message the service sends, with
    its receive time, after a header holding the service description. The
    file replays with `entitystream replay FILE --speed 1` or
    `stream-simulator --recording FILE`.

    While recording, the file is written as FILE.partial next to FILE; when
    recording ends (--limit, --duration, Ctrl-C, or a connection that fails
    later) it replaces FILE, keeping what was recorded. If nothing was
    recorded (e.g. the service is unreachable), FILE is left as it was. A
    write error (a full disk) stops the recording with exit status 1; the
    whole lines written so far are kept.

    Status and error events are printed as JSON lines on stdout. If stdout is
    closed (`| head`), they are no longer printed and recording goes on.

    Options:
      -o, --output FILE           where to write the recording (required)
      --limit N                   stop after N messages
      --duration S                stop after S seconds
      --where, --geometry, --out-fields, --out-sr, --track-field
                                  the subscription filter, as for connect
    \(ConnectionOptions.help)
      -h, --help                  show this help
    """

    init(arguments: inout ArgumentList) throws {
        while let word = try arguments.nextFlag() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "-o", "--output": outputPath = try arguments.value(for: word)
            case "--limit": limit = try arguments.integer(for: word, minimum: 1)
            case "--duration": durationSeconds = try arguments.seconds(for: word, minimum: 0, inclusive: false)
            case "--where", "--geometry", "--out-fields", "--out-sr", "--track-field":
                _ = try stream.parse(word, from: &arguments)
            default:
                if try connection.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") { throw arguments.unknownOption(word, command: "record") }
                guard serviceURL.isEmpty else { throw UsageError.unexpectedArgument(word, command: "record", expected: "one service URL") }
                serviceURL = word
            }
        }
        guard !serviceURL.isEmpty else { throw UsageError.missingArgument("the service URL (…/StreamServer)", command: "record") }
        guard !outputPath.isEmpty else { throw UsageError.missingArgument("-o FILE", command: "record") }
    }

    /// Why recording ended.
    enum StopReason: Sendable {
        case interrupted
        case durationElapsed
        case limitReached
        case disconnected
        case connectionFailed(String)
        case writeFailed(String)
    }

    func run() async throws -> Int32 {
        // Signals are watched before the partial file exists, so a stop always removes or keeps it as it should.
        let stops = StopTriggers<StopReason>(interrupted: .interrupted, durationSeconds: durationSeconds,
                                             durationElapsed: .durationElapsed)
        let file: PartialRecordingFile
        do { file = try PartialRecordingFile(path: outputPath) } catch {
            Stderr.line("entitystream: record: \(error)")
            return 1
        }
        let sink = RecordingSink(file: file, service: serviceURL, limit: limit) { stops.stop($0) }
        var options = connection.connectionOptions(filter: stream.filter, trackIDField: stream.trackIDField)
        options.clock = SystemClock()
        let live = LiveSource(connection: StreamServiceConnection(serviceURL: serviceURL, options: options, sink: sink))
        var reason = RecordCommand.StopReason.interrupted
        await withDiscardingTaskGroup { group in
            group.addTask { stops.stop(await live.run().map { .connectionFailed($0) } ?? .disconnected) }
            group.addTask { await stops.watchDuration() }
            reason = await stops.firstReason()
            await live.stop()
            group.cancelAll()
        }

        var status: Int32 = 0
        var (recording, count) = sink.finish()
        let existed = FileManager.default.fileExists(atPath: outputPath)
        do {
            if try recording.finish() {
                Stderr.line("entitystream: recorded \(count) message\(count == 1 ? "" : "s") to \(outputPath)")
            } else {
                Stderr.line("entitystream: record: nothing recorded; '\(outputPath)' \(existed ? "left as it was" : "not created")")
            }
        } catch {
            Stderr.line("entitystream: record: \(error)")
            status = 1
        }
        switch reason {
        case .connectionFailed(let message):
            Stderr.line("entitystream: \(message)")
            return 1
        case .writeFailed(let message):
            Stderr.line("entitystream: record: \(message)")
            return 1
        case .interrupted, .durationElapsed, .limitReached, .disconnected:
            return status
        }
    }
}
