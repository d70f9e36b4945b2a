import EntityStreamCore
import Foundation

/// Plays a recording file into a ``StreamPipeline`` with no network, applying
/// the stream filter locally (the role a server plays for a live stream).
///
/// ``prepare(path:trackIDField:filter:)`` reads and checks the file and the
/// options before anything runs, throwing ``ReplayError`` with a clear reason
/// (unreadable file, unknown layout, no track field, invalid where clause…).
/// ``run(into:)`` then decodes in batches (each line a message, as on a
/// socket); lines that cannot be decoded are reported as `error` events
/// naming the line and byte offset, and the replay goes on.
public struct ReplaySource: Sendable {
    public let file: RecordingFile
    public let path: String
    public let pacing: ReplayPacing
    public let loop: Bool
    private let baseSchema: Schema
    private var filter: StreamFilter

    public static func prepare(path: String, trackIDField: String?, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReplayError("cannot read '\(path)'")
        }
        let file: RecordingFile
        do { file = try RecordingFile(bytes: Array(data)) } catch { throw ReplayError("'\(path)' \(error)") }
        if case .recordedTiming = pacing, file.layout != .recording {
            throw ReplayError("--speed needs a recording made by 'entitystream record' (this file is \(file.layout.rawValue), without times); use --interval")
        }
        let schema = try Self.schema(of: file, trackIDField: trackIDField, path: path)
        do { _ = try LocalFilter(filter, schema: schema) } catch { throw ReplayError("filter: \(error)") }
        return ReplaySource(file: file, path: path, pacing: pacing, loop: loop, baseSchema: schema, filter: filter)
    }

    /// The schema the recording's messages decode with.
    private static func schema(of file: RecordingFile, trackIDField: String?, path: String) throws(ReplayError) -> Schema {
        if let header = file.header {
            var writer = JSONWriter(capacity: 4096)
            writer.append(header.description)
            do {
                let description = try ServiceDescription(json: writer.bytes)
                return try description.schema(trackIDFieldOverride: trackIDField)
            } catch {
                throw ReplayError("'\(path)': \(error)")
            }
        }
        // Plain features carry no description: learn the fields from the first
        // feature that decodes, and key entities by the named field.
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var scratch: [StreamMessage] = []
        for entry in file.entries.prefix(1000) {
            if (try? decoder.decode(entry.message, receivedAt: 0, into: &scratch)) != nil, !scratch.isEmpty { break }
        }
        var schema = decoder.schema
        let seen = schema.fields.map(\.name).joined(separator: ", ")
        guard let trackIDField else {
            throw ReplayError("'\(path)' has plain features without a service description; name the track-id field with --track-field (fields seen: \(seen))")
        }
        guard let index = schema.index(ofField: trackIDField) else {
            throw ReplayError("--track-field '\(trackIDField)' is not a field of '\(path)' (fields seen: \(seen))")
        }
        schema.trackIDIndex = index
        return schema
    }

    /// The filter applied locally at the start.
    public var initialFilter: StreamFilter { filter }

    /// Why `filter` cannot be applied to this recording, or nil when it can.
    public func problem(with filter: StreamFilter) -> String? {
        do {
            _ = try LocalFilter(filter, schema: baseSchema)
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
        guard var batch = try? Batch(schema: baseSchema, filter: filter) else { return }
        await pipeline.schemaChanged(batch.local.schema)
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
                if let requested = filterUpdates?.take() {
                    await batch.apply(requested, pipeline: pipeline)
                }
                let now = clock.now()
                for entryIndex in index..<end {
                    let entry = entries[entryIndex]
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
    private struct Batch {
        var decoder: EsriFeatureDecoder
        var activeFilter: StreamFilter
        var local: LocalFilter
        var decoded: [StreamMessage] = []
        var accepted: [StreamMessage] = []
        var knownFields: Int

        init(schema: Schema, filter: StreamFilter) throws {
            decoder = EsriFeatureDecoder(schema: schema)
            activeFilter = filter
            local = try LocalFilter(filter, schema: schema)
            knownFields = schema.fields.count
        }

        /// Adopts a filter set while running (already validated by the control command).
        mutating func apply(_ requested: StreamFilter, pipeline: StreamPipeline) async {
            guard requested != activeFilter, let rebuilt = try? LocalFilter(requested, schema: decoder.schema) else { return }
            activeFilter = requested
            local = rebuilt
            await pipeline.schemaChanged(local.schema)
        }

        /// Hands over what was decoded so far (after any schema change it brought).
        mutating func handOver(to pipeline: StreamPipeline) async {
            if decoder.schema.fields.count != knownFields {
                knownFields = decoder.schema.fields.count
                if let rebuilt = try? LocalFilter(activeFilter, schema: decoder.schema) {
                    local = rebuilt
                    await pipeline.schemaChanged(local.schema)
                }
            }
            if local.isPassThrough {
                swap(&accepted, &decoded)
            } else {
                for message in decoded {
                    switch message {
                    case .observation(let observation):
                        if local.accepts(observation) { accepted.append(.observation(local.project(observation))) }
                    case .nonPointGeometry(let kind, let observation):
                        accepted.append(.nonPointGeometry(kind: kind, local.project(observation)))
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
            return clock.now() + milliseconds
        case .recordedTiming(let speed):
            guard let offset = entry.offsetMilliseconds else { return nil }
            let span = (file.entries.last?.offsetMilliseconds ?? 0) + 1
            let scaled = Double(offset + Int64(pass) * span) / speed
            return start + Int64(scaled.rounded())
        }
    }
}
