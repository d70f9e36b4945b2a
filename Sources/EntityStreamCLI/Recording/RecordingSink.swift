import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamLocking
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFiles

/// Writes what a connection receives as a recording — the header with the
/// service description once, then every message of each batch with its
/// receive time — and prints the connection's status, filter and error
/// events as JSON lines on stdout.
///
/// Recording stops, and `stop` is called, after `limit` messages
/// (``RecordCommand/StopReason/limitReached``) or when the file cannot be
/// written (``RecordCommand/StopReason/writeFailed(_:)``); later batches are
/// ignored. The recording is the job: when stdout is closed by its reader
/// (`| head`) the status lines stop and recording goes on (another stdout
/// error is said once on stderr). The writes (file and stdout) run on a
/// ``BlockingIOThread``, never on Swift's cooperative pool. Thread-safe: the
/// file and the status output are each kept in a ``LockedState``.
final class RecordingSink: StreamConnectionSink {
    private struct Recording {
        var file: PartialRecordingFile
        /// The lines of one batch (or the header), reused.
        var lines = JSONWriter(capacity: 64 * 1024)
        var startedAt: Int64?
        /// Messages in the file.
        var messages = 0
        var stopped = false
    }

    private struct StatusOutput {
        var formatter = JSONLinesFormatter(format: .esri, schema: Schema(fields: []))
        var lines = JSONWriter(capacity: 512)
        var isOpen = true
    }

    private let service: String
    private let limit: Int?
    private let stop: @Sendable (RecordCommand.StopReason) -> Void
    private let recording: LockedState<Recording>
    private let status = LockedState(StatusOutput())
    private let io = BlockingIOThread(name: "entitystream-record")

    init(file: PartialRecordingFile, service: String, limit: Int?,
         stop: @escaping @Sendable (RecordCommand.StopReason) -> Void) {
        recording = LockedState(Recording(file: file))
        self.service = service
        self.limit = limit
        self.stop = stop
    }

    /// Stops recording and hands over the file to finish, with how many
    /// messages it holds. Call once, after the connection has stopped.
    func finish() -> (file: PartialRecordingFile, messages: Int) {
        recording.withLock { recording in
            recording.stopped = true
            return (recording.file, recording.messages)
        }
    }

    func descriptionLoaded(_ description: ServiceDescription) async {
        let service = self.service
        let recording = self.recording
        let failure: String? = await io.run { recording.withLock { recording in
            guard !recording.stopped, recording.startedAt == nil else { return nil }
            let now = SystemClock().now()
            recording.startedAt = now
            recording.lines.removeAll()
            RecordingWriter.appendHeader(RecordingHeader(service: ServiceURLs.redacted(service), startedAt: now,
                                                         description: Redaction.withoutCredentials(.object(description.raw))),
                                        to: &recording.lines)
            return Self.write(&recording)
        } }
        if let failure { stop(.writeFailed(failure)) }
    }

    func rawBatch(_ batch: MessageBatch, receivedAt: Int64) async {
        let limit = self.limit
        let recording = self.recording
        let reason: RecordCommand.StopReason? = await io.run { recording.withLock { recording in
            guard !recording.stopped, let startedAt = recording.startedAt else { return nil }
            recording.lines.removeAll()
            let room = limit.map { $0 - recording.messages } ?? Int.max
            let count = min(batch.ends.count, room)
            batch.bytes.withUnsafeBytes { all in
                var start = 0
                for end in batch.ends.prefix(count) {
                    RecordingWriter.appendLine(offsetMilliseconds: receivedAt - startedAt,
                                               message: UnsafeRawBufferPointer(rebasing: all[start..<end]), to: &recording.lines)
                    start = end
                }
            }
            if let failure = Self.write(&recording) { return .writeFailed(failure) }
            recording.messages += count
            guard count == room else { return nil }
            recording.stopped = true
            return .limitReached
        } }
        if let reason { stop(reason) }
    }

    /// Writes the lines; on failure stops recording and says why.
    private static func write(_ recording: inout Recording) -> String? {
        do {
            try recording.file.write(recording.lines)
            return nil
        } catch {
            recording.stopped = true
            return error.description
        }
    }

    func schemaChanged(_ schema: Schema) async {}
    func receive(_ messages: [StreamMessage]) async {}

    func publish(_ event: StreamEvent) async {
        guard event.kind == .status || event.kind == .error || event.kind == .filter else { return }
        let status = self.status
        await io.run { status.withLock { status in
            guard status.isOpen else { return }
            status.lines.removeAll()
            status.formatter.append(event, to: &status.lines)
            do throws(FileDescriptorOutput.Failure) {
                try FileDescriptorOutput.standardOutput.write(status.lines)
            } catch {
                status.isOpen = false
                if !error.isClosedOutput {
                    Stderr.line("entitystream: record: cannot write to stdout: \(error); recording goes on without status lines")
                }
            }
        } }
    }
}
