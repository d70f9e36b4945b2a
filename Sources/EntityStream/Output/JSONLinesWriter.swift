import EntityStreamCore
import Synchronization

/// Writes a subscriber's events as JSON lines to a file descriptor
/// (standard output by default).
///
/// Each batch is formatted into one reusable buffer and written at the end
/// of the batch (and whenever the buffer passes 256 KiB), so a downstream
/// reader sees events promptly. ``run()`` returns when the subscription
/// ends, when the observation limit is reached, when the reader has gone
/// away (EPIPE, e.g. `| head`), or when the output cannot be written (a full
/// disk, an I/O error: see ``FileDescriptorOutput``).
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
    private let output: FileDescriptorOutput
    private let observationLimit: Int?
    private let counters: Counters

    /// Observation events written so far, for progress reports. Thread-safe.
    public final class Counters: Sendable {
        private let observations = Atomic<Int>(0)
        public init() {}
        public var observationsWritten: Int { observations.load(ordering: .relaxed) }
        func add(observations count: Int) {
            observations.add(count, ordering: .relaxed)
        }
    }

    public init(subscriber: Subscriber, schema: SchemaBox, format: OutputFormat, fileDescriptor: Int32 = 1,
                observationLimit: Int? = nil, counters: Counters = Counters()) {
        self.subscriber = subscriber
        self.schema = schema
        self.format = format
        output = FileDescriptorOutput(fileDescriptor: fileDescriptor)
        self.observationLimit = observationLimit
        self.counters = counters
    }

    public var writtenCounters: Counters { counters }

    public func run() async -> Ending {
        var formatter = JSONLinesFormatter(format: format, schema: schema.schema)
        var writer = JSONWriter(capacity: 512 * 1024)
        var observations = 0
        while let batch = await subscriber.next() {
            formatter.updateSchema(schema.schema)
            writer.removeAll()
            var observationsInBatch = 0
            var reachedLimit = false
            for event in batch {
                formatter.append(event, to: &writer)
                if event.kind == .observation {
                    observations += 1
                    observationsInBatch += 1
                    if let observationLimit, observations >= observationLimit {
                        reachedLimit = true
                        break
                    }
                }
                if writer.count >= 256 * 1024 {
                    do { try output.write(writer) } catch { return Self.ending(for: error) }
                    writer.removeAll()
                }
            }
            do { try output.write(writer) } catch { return Self.ending(for: error) }
            counters.add(observations: observationsInBatch)
            if reachedLimit { return .limitReached }
        }
        return .finished
    }

    private static func ending(for failure: FileDescriptorOutput.Failure) -> Ending {
        failure.isClosedOutput ? .outputClosed : .outputFailed(failure)
    }
}
