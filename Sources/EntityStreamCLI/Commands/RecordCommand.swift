import EntityStream
import EntityStreamCore
import Foundation
import Locking
import Transport

/// `entitystream record URL -o FILE`: save a live stream with its service
/// description and every message's receive time, for exact replays.
struct RecordCommand {
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
    `stream-simulator --recording FILE`. Status and error events are printed
    as JSON lines on stdout.

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
        while let word = arguments.next() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "-o", "--output": outputPath = try arguments.value(for: word)
            case "--limit": limit = try arguments.integer(for: word, minimum: 1)
            case "--duration": durationSeconds = try arguments.number(for: word, minimum: 0, inclusive: false)
            case "--where", "--geometry", "--out-fields", "--out-sr", "--track-field":
                _ = try stream.parse(word, from: &arguments)
            default:
                if try connection.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") { throw UsageError("record: unknown option '\(word)' (see entitystream record --help)") }
                guard serviceURL.isEmpty else { throw UsageError("record: unexpected argument '\(word)'; give one service URL") }
                serviceURL = word
            }
        }
        guard !serviceURL.isEmpty else { throw UsageError("record: missing the service URL (…/StreamServer)") }
        guard !outputPath.isEmpty else { throw UsageError("record: missing -o FILE") }
    }

    func run() async throws -> Int32 {
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
              let file = FileHandle(forWritingAtPath: outputPath) else {
            Stderr.line("entitystream: record: cannot create '\(outputPath)'")
            return 1
        }
        let stops = StopTriggers<String?>(interrupted: nil, durationSeconds: durationSeconds, durationElapsed: nil)
        let sink = RecordingSink(file: file, service: serviceURL, limit: limit) { stops.stop(nil) }
        var options = connection.connectionOptions(filter: stream.filter, trackIDField: stream.trackIDField)
        options.clock = SystemClock()
        let live = LiveSource(connection: StreamServiceConnection(serviceURL: serviceURL, options: options, sink: sink))
        let runner = Task { stops.stop(await live.run()) }
        let failure = await stops.firstReason()
        await live.stop()
        await runner.value
        try? file.close()
        let count = sink.messageCount
        Stderr.line("entitystream: recorded \(count) message\(count == 1 ? "" : "s") to \(outputPath)")
        if let failure {
            Stderr.line("entitystream: \(failure)")
            return 1
        }
        return 0
    }
}

/// Writes what a connection receives as a recording, and prints its status
/// and error events as JSON lines.
final class RecordingSink: StreamConnectionSink {
    private struct State {
        /// The lines of one batch (or the header), reused.
        var buffer = JSONWriter(capacity: 64 * 1024)
        var startedAt: Int64?
        var messages = 0
        var stopped = false
    }

    private let file: FileHandle
    private let service: String
    private let limit: Int?
    private let onLimit: @Sendable () -> Void
    private let state = LockedState(State())

    init(file: FileHandle, service: String, limit: Int?, onLimit: @escaping @Sendable () -> Void) {
        self.file = file
        self.service = service
        self.limit = limit
        self.onLimit = onLimit
    }

    var messageCount: Int { state.withLock { $0.messages } }

    func descriptionLoaded(_ description: ServiceDescription) async {
        state.withLock { state in
            guard state.startedAt == nil else { return }
            let now = SystemClock().now()
            state.startedAt = now
            state.buffer.removeAll()
            RecordingWriter.appendHeader(RecordingHeader(service: ServiceURLs.redacted(service), startedAt: now,
                                                         description: .object(description.raw)), to: &state.buffer)
            state.buffer.withUnsafeBytes { file.write(Data($0)) }
        }
    }

    func rawBatch(_ batch: MessageBatch, receivedAt: Int64) async {
        let reachedLimit = state.withLock { state in
            guard !state.stopped, let startedAt = state.startedAt else { return false }
            state.buffer.removeAll()
            var reachedLimit = false
            batch.bytes.withUnsafeBytes { all in
                var start = 0
                for end in batch.ends {
                    RecordingWriter.appendLine(offsetMilliseconds: receivedAt - startedAt,
                                               message: UnsafeRawBufferPointer(rebasing: all[start..<end]), to: &state.buffer)
                    start = end
                    state.messages += 1
                    if let limit, state.messages >= limit {
                        state.stopped = true
                        reachedLimit = true
                        return
                    }
                }
            }
            if state.buffer.count > 0 { state.buffer.withUnsafeBytes { file.write(Data($0)) } }
            return reachedLimit
        }
        if reachedLimit { onLimit() }
    }

    func schemaChanged(_ schema: Schema) async {}
    func receive(_ messages: [StreamMessage]) async {}

    func publish(_ event: StreamEvent) async {
        guard event.kind == .status || event.kind == .error || event.kind == .filter else { return }
        var writer = JSONWriter(capacity: 512)
        var formatter = JSONLinesFormatter(format: .esri, schema: Schema(fields: []))
        formatter.append(event, to: &writer)
        FileHandle.standardOutput.write(Data(writer.bytes))
    }
}
