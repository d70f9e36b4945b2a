import EntityStreamCore
import Foundation
import EntityStreamModel
import EntityStreamFiles

/// Plays a recording file into a ``StreamPipeline`` with no network, applying
/// the stream filter locally (the role a server plays for a live stream).
///
/// A file given by path is streamed in bounded chunks
/// (``RecordingFileReader``), never read whole: memory does not grow with its
/// size. Standard input (`replay -`) and CSV tracks (`replay --columns`) are the
/// exceptions: they are held in memory (stdin cannot be read twice for
/// `--loop`; a CSV track is sorted by time and its column types are inferred
/// over all rows), see ``prepare(bytes:path:trackIDField:filter:pacing:loop:)``
/// and ``prepare(stream:path:filter:pacing:loop:)``.
/// ``prepare(path:trackIDField:filter:pacing:loop:)`` reads its first
/// messages to learn the layout and schema and checks the options before
/// anything runs, throwing ``ReplayError`` with a clear reason (unreadable
/// file, unknown layout, no track field, invalid where clause…; `--speed` on
/// a file without times is a usage error). ``run(into:filterUpdates:)`` then
/// reads and decodes in batches (each line a message, as on a socket);
/// lines that cannot be decoded, and malformed lines of a recording, are
/// reported as `error` events (source `recording`) naming the file and line
/// (and byte offset), in their place, and the replay goes on. A file that
/// turns out unreadable further on (an invalid array, an over-long line)
/// ends the replay with an `error` event naming the line. Due times follow
/// ``PlaybackSchedule`` (saturating: no offset, loop or speed can trap).
public struct ReplaySource: Sendable {
    /// What the file holds (layout, header, schema), from its first messages.
    public let summary: RecordingSummary
    public let path: String
    public let pacing: ReplayPacing
    public let loop: Bool
    private let baseSchema: Schema
    private let spatialReference: Int?
    private let filter: StreamFilter
    /// The messages when they are held in memory (standard input, a CSV
    /// track); nil when they are streamed from ``path``.
    private let entries: [RecordingFile.Entry]?

    /// The file's layout.
    public var layout: RecordingFile.Layout { summary.layout }

    public static func prepare(path: String, trackIDField: String?, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        let summary: RecordingSummary
        do { summary = try RecordingSummary(path: path, trackIDField: trackIDField, trackFieldRequired: true, readWholeFile: false) } catch {
            throw .recording(path: path, error)
        }
        return try prepare(summary: summary, path: path, entries: nil, filter: filter, pacing: pacing, loop: loop)
    }

    /// Prepares a file's bytes already read (standard input), named `path` in
    /// messages. The bytes stay in memory while the replay runs (standard
    /// input cannot be read again for `--loop`); files are better given by path.
    public static func prepare(bytes: [UInt8], path: String, trackIDField: String?, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        let stream: RecordedStream
        do { stream = try RecordedStream(bytes: bytes, trackIDField: trackIDField, trackFieldRequired: true) } catch {
            throw .recording(path: path, error)
        }
        return try prepare(stream: stream, path: path, filter: filter, pacing: pacing, loop: loop)
    }

    /// The whole file (for a CSV track, which is read whole), or a
    /// ``ReplayError`` with the system's reason.
    public static func readFile(_ path: String) throws(ReplayError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            throw .isDirectory(path: path)
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw .unreadable(path: path, errno: errno) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// Prepares a stream read some other way (a CSV track, standard input),
    /// named `path` in messages; its entries stay in memory while the replay runs.
    public static func prepare(stream: RecordedStream, path: String, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        try prepare(summary: RecordingSummary(path: path, stream: stream), path: path, entries: stream.file.entries, filter: filter,
                    pacing: pacing, loop: loop)
    }

    /// `entries` nil: streamed from `path`.
    private static func prepare(summary: RecordingSummary, path: String, entries: [RecordingFile.Entry]?, filter: StreamFilter,
                                pacing: ReplayPacing, loop: Bool) throws(ReplayError) -> ReplaySource {
        if case .recordedTiming = pacing, !summary.layout.isTimed {
            throw .speedNeedsTimes(layout: summary.layout.rawValue)
        }
        let source = ReplaySource(summary: summary, path: path, pacing: pacing, loop: loop, baseSchema: summary.schema,
                                  spatialReference: summary.spatialReference, filter: filter, entries: entries)
        if let problem = source.problem(with: filter) { throw .filter(problem) }
        return source
    }

    /// Why `filter` cannot be applied to this recording, or nil when it can.
    public func problem(with filter: StreamFilter) -> LocalFilterError? {
        do throws(LocalFilterError) {
            _ = try LocalFilter(filter, schema: baseSchema, spatialReference: spatialReference)
            return nil
        } catch {
            return error
        }
    }

    /// Messages decoded per hand-over when playing as fast as possible. Every
    /// stage holds about one batch, so this sets the memory in flight. A read
    /// returns every line of its chunk, so a batch is also cut here once it
    /// reaches this size: before, a 1 MiB chunk of AIS lines made batches of
    /// about 4,600, and the 1 GB replay peaked at 64 MB; cut at 1024 (with
    /// 256 KiB chunks) it peaks at 45 MB, no slower (measured through a pipe).
    static let unpacedBatch = 1024

    /// Plays the file into `pipeline`; returns when it is done (never, with
    /// `loop`, until the task is cancelled). `filterUpdates` yields filters set
    /// while running (`set-filter`); they apply from the next batch on.
    public func run(into pipeline: StreamPipeline, filterUpdates: FilterBox? = nil) async {
        let clock = pipeline.clock
        guard var batch = try? Batch(schema: baseSchema, spatialReference: spatialReference, filter: filter) else { return }
        await pipeline.schemaChanged(baseSchema)
        var errorCount = 0
        let paced = pacing != .asFastAsPossible
        let start = clock.now()
        var pass = 0
        var span: Double = 1
        var lastOffset: Int64 = 0
        var reader: MessageReader
        do { reader = try MessageReader(path: path, entries: entries) } catch {
            errorCount += 1
            await pipeline.report(.recording, error.description, count: errorCount)
            return
        }
        var messages = RecordingChunkParser.Batch()
        repeat {
            var more = true
            var played = 0
            while more {
                if Task.isCancelled { return }
                messages.removeAll()
                do {
                    more = try reader.read(into: &messages, minimum: paced ? 1 : Self.unpacedBatch)
                } catch {
                    errorCount += 1
                    await pipeline.report(.recording, "\(path) \(error)", count: errorCount)
                    return
                }
                played += messages.count
                var index = 0
                while index < messages.count {
                    if Task.isCancelled { return }
                    let end = paced ? index + 1 : messages.count
                    if paced, messages.problems[index] == nil,
                       let pause = pauseBefore(offset: messages.offsets[index], pass: pass, span: span, start: start, clock: clock) {
                        do { try await clock.sleep(until: pause) } catch { return }
                    }
                    if let requested = filterUpdates?.take() { batch.apply(requested) }
                    let now = clock.now()
                    for entryIndex in index..<end {
                        if let problem = messages.problems[entryIndex] {
                            // A malformed recording line: reported in its place; the replay goes on.
                            await batch.handOver(to: pipeline)
                            errorCount += 1
                            await pipeline.report(.recording, "\(path) line \(messages.lines[entryIndex]): \(problem)", count: errorCount)
                            continue
                        }
                        do {
                            try batch.decoder.decode(messages.bytes, range: messages.range(entryIndex), receivedAt: now, into: &batch.decoded)
                        } catch {
                            // Keep the error in its place: hand over what came before it first.
                            await batch.handOver(to: pipeline)
                            errorCount += 1
                            await pipeline.report(.recording, "\(path) line \(messages.lines[entryIndex]): \(error)", count: errorCount)
                        }
                        if let offset = messages.offsets[entryIndex] { lastOffset = offset }
                        // A chunk can hold more lines than a hand-over should carry.
                        if batch.decoded.count >= Self.unpacedBatch { await batch.handOver(to: pipeline) }
                    }
                    await batch.handOver(to: pipeline)
                    index = end
                }
            }
            if pass == 0 { span = Double(max(lastOffset, 0)) + 1 }
            pass += 1
            guard loop, played > 0, !Task.isCancelled else { return }
            do { try reader.rewind() } catch {
                errorCount += 1
                await pipeline.report(.recording, error.description, count: errorCount)
                return
            }
        } while true
    }

    /// Where a running replay takes its messages from: the file, in bounded
    /// chunks, or the entries held in memory.
    private enum MessageReader {
        case file(RecordingFileReader)
        case entries([RecordingFile.Entry], next: Int)

        init(path: String, entries: [RecordingFile.Entry]?) throws(RecordingError) {
            if let entries { self = .entries(entries, next: 0) } else { self = .file(try RecordingFileReader(path: path)) }
        }

        /// Appends messages until `batch` holds `minimum` or the messages end; false once they have ended.
        mutating func read(into batch: inout RecordingChunkParser.Batch, minimum: Int) throws(RecordingError) -> Bool {
            switch self {
            case .file(let reader):
                return try reader.read(into: &batch, minimum: minimum)
            case .entries(let entries, let next):
                let end = min(next + max(minimum - batch.count, 1), entries.count)
                for index in next..<end { batch.append(entries[index]) }
                self = .entries(entries, next: end)
                return end < entries.count
            }
        }

        mutating func rewind() throws(RecordingError) {
            switch self {
            case .file(let reader): try reader.rewind()
            case .entries(let entries, _): self = .entries(entries, next: 0)
            }
        }
    }

    /// The decoding state of a running replay, and its hand-over to the pipeline.
    ///
    /// The filter never changes the schema (``LocalFilter/masked(_:)`` keeps
    /// its alignment); only fields learned while decoding grow it, so
    /// everything downstream can take a newer schema for older observations.
    private struct Batch {
        var decoder: EsriFeatureDecoder
        let spatialReference: Int?
        var activeFilter: StreamFilter
        var local: LocalFilter
        var decoded: [StreamMessage] = []
        var accepted: [StreamMessage] = []
        /// The schema the pipeline was last told about.
        var announced: Schema

        init(schema: Schema, spatialReference: Int?, filter: StreamFilter) throws {
            decoder = EsriFeatureDecoder(schema: schema)
            decoder.spatialReference = spatialReference
            announced = schema
            self.spatialReference = spatialReference
            activeFilter = filter
            local = try LocalFilter(filter, schema: schema, spatialReference: spatialReference)
        }

        /// Adopts a filter set while running (already validated by the control command).
        mutating func apply(_ requested: StreamFilter) {
            guard requested != activeFilter,
                  let rebuilt = try? LocalFilter(requested, schema: decoder.schema, spatialReference: spatialReference) else { return }
            activeFilter = requested
            local = rebuilt
        }

        /// Hands over what was decoded so far (after any fields it taught the decoder).
        mutating func handOver(to pipeline: StreamPipeline) async {
            if decoder.schema != announced {
                announced = decoder.schema
                if let rebuilt = try? LocalFilter(activeFilter, schema: decoder.schema, spatialReference: spatialReference) { local = rebuilt }
                await pipeline.schemaChanged(decoder.schema)
            }
            if local.isPassThrough {
                swap(&accepted, &decoded)
            } else {
                for message in decoded {
                    switch message {
                    case .observation(let observation):
                        if local.accepts(observation) { accepted.append(.observation(local.masked(observation))) }
                    case .nonPointGeometry(let kind, let observation):
                        accepted.append(.nonPointGeometry(kind: kind, local.masked(observation)))
                    case .delete, .filterReply:
                        accepted.append(message)
                    }
                }
            }
            decoded.removeAll(keepingCapacity: true)
            if !accepted.isEmpty { await pipeline.receive(accepted) }
            accepted.removeAll(keepingCapacity: true)
        }
    }

    /// When the next message is due, if pacing says to wait. `span` is the
    /// recording's length (its last offset + 1), known once a pass has ended.
    private func pauseBefore(offset: Int64?, pass: Int, span: Double, start: Int64, clock: any EntityClock) -> Int64? {
        switch pacing {
        case .asFastAsPossible:
            return nil
        case .interval(let milliseconds):
            return PlaybackSchedule.adding(Double(milliseconds), to: clock.now())
        case .recordedTiming(let speed):
            guard let offset else { return nil }
            return PlaybackSchedule.due(start: start, offset: offset, pass: pass, span: span, speed: speed)
        }
    }
}
