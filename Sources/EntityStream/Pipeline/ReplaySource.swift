import EntityStreamCore
import Foundation

/// Plays a recording file into a ``StreamPipeline`` with no network, applying
/// the stream filter locally (the role a server plays for a live stream).
///
/// The file is streamed in bounded chunks (``RecordingFileReader``), never
/// read whole: memory does not grow with its size.
/// ``prepare(path:trackIDField:filter:pacing:loop:)`` reads its first
/// messages to learn the layout and schema and checks the options before
/// anything runs, throwing ``ReplayError`` with a clear reason (unreadable
/// file, unknown layout, no track field, invalid where clause…; `--speed` on
/// a file without times is a usage error). ``run(into:filterUpdates:)`` then
/// reads and decodes in batches (each line a message, as on a socket);
/// lines that cannot be decoded are reported as `error` events naming the
/// line and byte offset, and the replay goes on; a file that turns out
/// malformed further on (a broken recording line) ends the replay with an
/// `error` event naming the line.
public struct ReplaySource: Sendable {
    /// What the file holds (layout, header, schema), from its first messages.
    public let summary: RecordingSummary
    public let path: String
    public let pacing: ReplayPacing
    public let loop: Bool
    private let baseSchema: Schema
    private let spatialReference: Int?
    private let filter: StreamFilter

    /// The file's layout.
    public var layout: RecordingFile.Layout { summary.layout }

    public static func prepare(path: String, trackIDField: String?, filter: StreamFilter, pacing: ReplayPacing,
                               loop: Bool) throws(ReplayError) -> ReplaySource {
        let summary: RecordingSummary
        do { summary = try RecordingSummary(path: path, trackIDField: trackIDField, trackFieldRequired: true, readWholeFile: false) } catch {
            if error.message.hasPrefix("cannot read") { throw ReplayError(error.message) }
            throw ReplayError("'\(path)' \(error)")
        }
        if case .recordedTiming = pacing, summary.layout != .recording {
            throw ReplayError("--speed needs a recording made by 'entitystream record' (this file is \(summary.layout.rawValue), without times); use --interval",
                              isUsageError: true)
        }
        let source = ReplaySource(summary: summary, path: path, pacing: pacing, loop: loop, baseSchema: summary.schema,
                                  spatialReference: summary.spatialReference, filter: filter)
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
        let paced = pacing != .asFastAsPossible
        let start = clock.now()
        var pass = 0
        var span: Int64 = 1
        var lastOffset: Int64 = 0
        let reader: RecordingFileReader
        do { reader = try RecordingFileReader(path: path) } catch {
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
                    more = try reader.read(into: &messages, minimum: paced ? 1 : 4096)
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
                    if paced, let pause = pauseBefore(offset: messages.offsets[index], pass: pass, span: span, start: start, clock: clock) {
                        do { try await clock.sleep(until: pause) } catch { return }
                    }
                    if let requested = filterUpdates?.take() { batch.apply(requested) }
                    let now = clock.now()
                    for entryIndex in index..<end {
                        do {
                            try batch.decoder.decode(messages.bytes, range: messages.range(entryIndex), receivedAt: now, into: &batch.decoded)
                        } catch {
                            // Keep the error in its place: hand over what came before it first.
                            await batch.handOver(to: pipeline)
                            errorCount += 1
                            await pipeline.report(.recording, "\(path) line \(messages.lines[entryIndex]): \(error)", count: errorCount)
                        }
                        if let offset = messages.offsets[entryIndex] { lastOffset = offset }
                    }
                    await batch.handOver(to: pipeline)
                    index = end
                }
            }
            if pass == 0 { span = max(lastOffset, 0) &+ 1 }
            pass += 1
            guard loop, played > 0, !Task.isCancelled else { return }
            do { try reader.rewind() } catch {
                errorCount += 1
                await pipeline.report(.recording, error.description, count: errorCount)
                return
            }
        } while true
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

    /// When the next message is due, if pacing says to wait. `span` is the
    /// recording's length (its last offset + 1), known once a pass has ended.
    private func pauseBefore(offset: Int64?, pass: Int, span: Int64, start: Int64, clock: any EntityClock) -> Int64? {
        switch pacing {
        case .asFastAsPossible:
            return nil
        case .interval(let milliseconds):
            return clock.now() + milliseconds
        case .recordedTiming(let speed):
            guard let offset else { return nil }
            let scaled = (Double(offset) + Double(pass) * Double(span)) / speed
            // A tiny speed can scale past Int64: wait "forever" (31,000 years) instead of trapping.
            return start + Int64(min(scaled.rounded(), 1e15))
        }
    }
}
