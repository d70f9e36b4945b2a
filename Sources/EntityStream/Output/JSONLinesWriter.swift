import EntityStreamCore
import EntityStreamLocking
import EntityStreamProjection
import Synchronization
import EntityStreamModel
import EntityStreamFiles

/// Writes a subscriber's events as JSON lines to a file descriptor
/// (standard output by default) — or, in a feature format (GeoJSON, CSV),
/// the features there and every other event as a JSON line to a side file
/// descriptor (standard error by default; a side that cannot be written is
/// not an error of the output).
///
/// Each batch is formatted into a buffer that is written at the end of the
/// batch (and whenever it passes ``flushBytes``), so a downstream reader
/// sees events promptly. The writes happen on a ``BlockingIOThread`` (a slow
/// reader blocks that thread, never Swift's cooperative pool), while the
/// next buffer is formatted: two buffers alternate, so at most one buffer
/// waits to be written. ``run()`` returns when the subscription
/// ends, when the observation limit is reached, when the reader has gone
/// away (EPIPE, e.g. `| head`), or when the output cannot be written (a full
/// disk, an I/O error: see ``FileDescriptorOutput``); in the last three
/// cases it ends the subscription first (later deliveries are dropped, never
/// waited for).
public final class JSONLinesWriter: Sendable {
    public enum Ending: Sendable, Hashable {
        /// The subscription ended.
        case finished
        /// `limit` observation events were written.
        case limitReached
        /// The output was closed by the reader (EPIPE).
        case outputClosed
        /// The output could not be written, for another reason.
        case outputFailed(FileDescriptorOutput.Failure)
    }

    private let subscriber: Subscriber
    private let schema: SchemaBox
    private let format: OutputFormat
    private let coordinates: SpatialReference?
    private let output: FileDescriptorOutput
    private let side: FileDescriptorOutput
    private let observationLimit: Int?
    private let counters: Counters

    /// Observation events written so far, for progress reports, and CSV
    /// values that had no column. Thread-safe.
    public final class Counters: Sendable {
        private let observations = Atomic<Int>(0)
        private let dropped = Atomic<Int>(0)
        private let flushed = Atomic<Int>(0)
        public init() {}
        public var observationsWritten: Int { observations.load(ordering: .relaxed) }
        /// CSV values whose key had no column (``FeatureFormatter/droppedValues``).
        public var valuesWithoutColumn: Int { dropped.load(ordering: .relaxed) }
        /// Observation events whose lines the output has taken (`write` returned):
        /// what a JetStream consumer may acknowledge.
        public var observationsFlushed: Int { flushed.load(ordering: .acquiring) }
        func flushed(upTo count: Int) {
            flushed.store(count, ordering: .releasing)
        }
        func add(observations count: Int) {
            observations.add(count, ordering: .relaxed)
        }
        func setDropped(_ count: Int) {
            dropped.store(count, ordering: .relaxed)
        }
    }

    private let thread: BlockingIOThread
    private typealias Write = PendingJob<(JSONWriter, FileDescriptorOutput.Failure?)>
    /// Set by ``abandon()``; the write in flight, so that it can be abandoned.
    private let abandonment = LockedState<(abandoned: Bool, inFlight: Write?)>((false, nil))

    /// A buffer is handed to the writing thread once it holds this much.
    /// Each hand-over costs a few wake-ups: 512 KiB instead of 256 KiB
    /// replayed 2.6 % faster through a pipe in 16 paired runs, for 1 MB more
    /// memory (two buffers).
    static let flushBytes = 512 * 1024
    /// Room for a flush's worth and the batch's last events, so a buffer rarely grows.
    static let bufferCapacity = 2 * flushBytes

    /// `coordinates`: where a CSV writes x and y (WGS84 unless the user chose another; nil: as the features carry them).
    public init(subscriber: Subscriber, schema: SchemaBox, format: OutputFormat, coordinates: SpatialReference? = .wgs84,
                fileDescriptor: Int32 = 1, sideFileDescriptor: Int32 = 2, observationLimit: Int? = nil, counters: Counters = Counters(),
                thread: BlockingIOThread = BlockingIOThread(name: "entitystream-output")) {
        self.thread = thread
        self.subscriber = subscriber
        self.schema = schema
        self.format = format
        self.coordinates = coordinates
        output = FileDescriptorOutput(fileDescriptor: fileDescriptor)
        side = FileDescriptorOutput(fileDescriptor: sideFileDescriptor)
        output.enlargePipeBuffer()
        self.observationLimit = observationLimit
        self.counters = counters
    }

    public var writtenCounters: Counters { counters }

    /// Stops writing now: the events still queued are dropped, a write
    /// blocked on a reader that does not read is no longer waited for, and
    /// ``run()`` returns `.finished` at once. For a bounded end (`--duration`,
    /// a signal) when the output cannot keep up. Returns how many queued
    /// events were dropped (a buffer being written may be cut too).
    @discardableResult
    public func abandon() -> Int {
        let inFlight = abandonment.withLock { state -> Write? in
            state.abandoned = true
            defer { state.inFlight = nil }
            return state.inFlight
        }
        let dropped = subscriber.discard()
        inFlight?.abandon(returning: (JSONWriter(capacity: 0), nil))
        return dropped
    }

    private var isAbandoned: Bool { abandonment.withLock { $0.abandoned } }

    public func run() async -> Ending {
        let ending = await write()
        // A writer that stops early stops consuming: end its subscription, so
        // that publishers (the bus, then the store and the source) are not
        // held back by a queue nobody will read. The session used to do this
        // only when the writer's stop was the first one it saw; when the
        // source had ended a moment before, closing the pipeline waited for
        // ever on the full queue.
        if ending != .finished { subscriber.finish() }
        return ending
    }

    private func write() async -> Ending {
        var formatter = JSONLinesFormatter(format: format, schema: schema.schema, coordinates: coordinates)
        var writer = JSONWriter(capacity: Self.bufferCapacity)
        var spare: JSONWriter? = JSONWriter(capacity: Self.bufferCapacity)
        var sideLines = JSONWriter(capacity: format.printsFeatures ? 4096 : 0)
        var inFlight: Write?
        var observations = 0
        let output = self.output
        let side = self.side
        let abandonment = self.abandonment

        /// Hands `writer` (and the side lines) to the output thread once the
        /// previous write has finished, taking that write's buffer back to fill next.
        func submit() async -> Ending? {
            if let pending = inFlight {
                let (returned, failure) = await pending.value
                inFlight = nil
                if let failure { return Self.ending(for: failure) }
                spare = returned
            }
            if isAbandoned { return .finished }
            let full = writer
            let sideFull = sideLines
            sideLines.removeAll()
            let observationsInBuffer = observations
            let counters = self.counters
            let job = thread.start {
                var buffer = full
                let failure: FileDescriptorOutput.Failure?
                do throws(FileDescriptorOutput.Failure) { try output.write(buffer); failure = nil } catch { failure = error }
                if failure == nil { counters.flushed(upTo: observationsInBuffer) }
                // The side (stderr) carries what is not a feature; it failing is not the output failing.
                if sideFull.count > 0 { try? side.write(sideFull) }
                buffer.removeAll()
                return (buffer, failure)
            }
            inFlight = job
            let abandoned = abandonment.withLock { state -> Bool in
                if !state.abandoned { state.inFlight = job }
                return state.abandoned
            }
            if abandoned { return .finished }
            writer = spare ?? JSONWriter(capacity: Self.bufferCapacity)
            spare = nil
            writer.removeAll()
            return nil
        }

        func drain() async -> Ending? {
            guard let pending = inFlight, !isAbandoned else { return nil }
            inFlight = nil
            let (_, failure) = await pending.value
            return failure.map(Self.ending(for:))
        }

        while let batch = await subscriber.next() {
            formatter.updateSchema(schema.schema)
            var observationsInBatch = 0
            var reachedLimit = false
            var index = 0
            while index < batch.count {
                // Formatted by index (no copy of each event), a slice between flushes.
                let isObservation = batch[index].kind == .observation
                formatter.append(batch[index], to: &writer, side: &sideLines)
                index += 1
                if isObservation {
                    observations += 1
                    observationsInBatch += 1
                    if let observationLimit, observations >= observationLimit {
                        reachedLimit = true
                        break
                    }
                }
                if writer.count >= Self.flushBytes, let ending = await submit() { return ending }
            }
            if writer.count > 0 || sideLines.count > 0, let ending = await submit() { return ending }
            counters.add(observations: observationsInBatch)
            counters.setDropped(formatter.droppedValues)
            if reachedLimit { return await drain() ?? .limitReached }
        }
        return await drain() ?? .finished
    }

    private static func ending(for failure: FileDescriptorOutput.Failure) -> Ending {
        failure.isClosedOutput ? .outputClosed : .outputFailed(failure)
    }
}
