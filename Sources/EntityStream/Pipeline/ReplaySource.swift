import EntityStreamCore
import Foundation

/// Plays a recording file into a ``StreamPipeline`` with no network, applying
/// the stream filter locally (the role a server plays for a live stream).
///
/// ``prepare(path:trackIDField:filter:pacing:loop:)`` reads and checks the
/// file and the options before anything runs, throwing ``ReplayError`` with a
/// clear reason (unreadable file, unknown layout, no track field, invalid
/// where clause…; `--speed` on a file without times is a usage error).
/// ``run(into:)`` then decodes in batches (each line a message, as on a
/// socket); lines that cannot be decoded, and malformed lines of a
/// recording, are reported as `error` events (source `recording`) naming the
/// line (and byte offset), in their place, and the replay goes on.
public struct ReplaySource: Sendable {
    public let file: RecordingFile
    public let path: String
    public let pacing: ReplayPacing
    public let loop: Bool
    private let baseSchema: Schema
    private let spatialReference: Int?
    private let filter: StreamFilter
    /// The last offset of the timed entries: a looped pass lasts one millisecond more.
    private let lastOffset: Int64

    public static func prepare(path: String, trackIDField: String?, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        try prepare(bytes: try readFile(path), path: path, trackIDField: trackIDField, filter: filter, pacing: pacing, loop: loop)
    }

    /// Prepares a file's bytes already read (standard input), named `path` in messages.
    public static func prepare(bytes: [UInt8], path: String, trackIDField: String?, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        let stream: RecordedStream
        do { stream = try RecordedStream(bytes: bytes, trackIDField: trackIDField, trackFieldRequired: true) } catch {
            throw ReplayError("'\(path)' \(error)")
        }
        return try prepare(stream: stream, path: path, filter: filter, pacing: pacing, loop: loop)
    }

    /// The whole file, or a ``ReplayError`` with the system's reason.
    public static func readFile(_ path: String) throws(ReplayError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReplayError("cannot read '\(path)': no such file")
        }
        guard !isDirectory.boolValue else { throw ReplayError("cannot read '\(path)': it is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReplayError("cannot read '\(path)': permission denied or unreadable")
        }
        return Array(data)
    }

    /// Prepares a stream read some other way (a CSV track), named `path` in messages.
    public static func prepare(stream: RecordedStream, path: String, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        if case .recordedTiming = pacing, !stream.file.layout.isTimed {
            throw ReplayError("--speed needs a recording made by 'entitystream record' or a CSV track (this file is \(stream.file.layout.rawValue), without times); use --interval",
                              isUsageError: true)
        }
        let source = ReplaySource(file: stream.file, path: path, pacing: pacing, loop: loop, baseSchema: stream.schema,
                                  spatialReference: stream.spatialReference, filter: filter,
                                  lastOffset: stream.file.entries.last { $0.offsetMilliseconds != nil }?.offsetMilliseconds ?? 0)
        if let problem = source.problem(with: filter) { throw ReplayError("filter: \(problem)") }
        return source
    }

    /// Why `filter` cannot be applied to this recording, or nil when it can.
    public func problem(with filter: StreamFilter) -> String? {
        do {
            _ = try LocalFilter(filter, schema: baseSchema, spatialReference: spatialReference)
            return nil
        } catch {
            return error.description
        }
    }

    /// Plays the file into `pipeline`; returns when it is done (never, with
    /// `loop`, until the task is cancelled). `filterUpdates` yields filters set
    /// while running (`set-filter`); they apply from the next batch on.
    public func run(into pipeline: StreamPipeline, filterUpdates: FilterBox? = nil) async {
        let clock = pipeline.clock
        guard var batch = try? Batch(schema: baseSchema, spatialReference: spatialReference, filter: filter) else { return }
        await pipeline.schemaChanged(baseSchema)
        var errorCount = 0
        let batchSize = pacing == .asFastAsPossible ? 4096 : 1
        let start = clock.now()
        var pass = 0
        repeat {
            var index = 0
            let entries = file.entries
            while index < entries.count {
                if Task.isCancelled { return }
                let end = min(index + batchSize, entries.count)
                if let pause = pauseBefore(entries[index], pass: pass, start: start, clock: clock) {
                    do { try await clock.sleep(until: pause) } catch { return }
                }
                if let requested = filterUpdates?.take() { batch.apply(requested) }
                let now = clock.now()
                for entryIndex in index..<end {
                    let entry = entries[entryIndex]
                    if let problem = entry.problem {
                        await batch.handOver(to: pipeline)
                        errorCount += 1
                        await pipeline.report(.recording, "\(path) line \(entry.line): \(problem)", count: errorCount)
                        continue
                    }
                    do {
                        try batch.decoder.decode(entry.message, receivedAt: now, into: &batch.decoded)
                    } catch {
                        // Keep the error in its place: hand over what came before it first.
                        await batch.handOver(to: pipeline)
                        errorCount += 1
                        await pipeline.report(.recording, "\(path) line \(entry.line): \(error)", count: errorCount)
                    }
                }
                await batch.handOver(to: pipeline)
                index = end
            }
            pass += 1
        } while loop && !Task.isCancelled && !file.entries.isEmpty
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

    /// When the next message is due, if pacing says to wait.
    private func pauseBefore(_ entry: RecordingFile.Entry, pass: Int, start: Int64, clock: any EntityClock) -> Int64? {
        switch pacing {
        case .asFastAsPossible:
            return nil
        case .interval(let milliseconds):
            return PlaybackSchedule.adding(Double(milliseconds), to: clock.now())
        case .recordedTiming(let speed):
            guard let offset = entry.offsetMilliseconds else { return nil }
            return PlaybackSchedule.due(start: start, offset: offset, pass: pass, lastOffset: lastOffset, speed: speed)
        }
    }
}
