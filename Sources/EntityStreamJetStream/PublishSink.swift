import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamModel

/// What a publishing session sends where: `SUBJECT.<service>.<track>` with
/// the service and track encoded as subject tokens (``SubjectToken``), and a
/// `Nats-Msg-Id` that two ingesters of the same feed compute alike.
public struct PublishRoute: Sendable, Hashable {
    public let subjectPrefix: String
    public let serviceToken: String

    public init(subjectPrefix: String, service: String) {
        self.subjectPrefix = subjectPrefix
        serviceToken = SubjectToken.encode(service)
    }

    /// The token of events that belong to no track (status, error, filter, response, analysis).
    public static let noTrackToken = "_none"

    public func subject(trackToken: String) -> String { "\(subjectPrefix).\(serviceToken).\(trackToken)" }

    /// The message id of an observation: service, track, and the FNV-1a 64
    /// hash of its geometry and attributes as received (the observation's
    /// identity: the same feature received by two ingesters has the same id;
    /// a later report of the track differs in its values).
    public func observationID(trackToken: String, observation: Observation) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        let hashed: Void? = observation.withSourceMembers { geometry, attributes in
            hash = FNV.hash64(geometry, into: hash)
            hash = FNV.hash64([UInt8(ascii: "|")], into: hash)
            hash = FNV.hash64(attributes, into: hash)
        }
        if hashed == nil {
            hash = FNV.hash64(Array("\(String(describing: observation.geometry))|\(observation.attributes)".utf8), into: hash)
        }
        return "\(serviceToken).\(trackToken).\(SubjectToken.hex64(hash))"
    }

    /// The text of a track id, as the `track` member prints it.
    public static func trackText(_ value: AttributeValue) -> String {
        switch value {
        case .null: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let text): return text
        case .date(let milliseconds): return String(milliseconds)
        }
    }
}

/// Subject tokens of track ids, remembered (a feed has a bounded set of
/// tracks; the memory is cleared if it ever holds 65,536).
struct TrackTokens {
    private var tokens: [AttributeValue: String] = [:]

    mutating func token(for track: AttributeValue) -> String {
        if let token = tokens[track] { return token }
        if tokens.count >= 65_536 { tokens.removeAll(keepingCapacity: true) }
        let token = SubjectToken.encode(PublishRoute.trackText(track))
        tokens[track] = token
        return token
    }
}

/// The bus subscriber that publishes a session's events to JetStream
/// (`--publish`): observations (and the other kinds `--events` names) as
/// the JSON lines stdout gets, in Esri format, in order per track.
///
/// It subscribes with back-pressure: while the publisher's window is full
/// (a slow or absent broker) this subscriber's queue fills, the bus waits,
/// the store waits, and the source stops reading — nothing is dropped.
public final class PublishSink: Sendable {
    /// A batch is handed to the publisher once its buffer holds this many bytes.
    static let batchBytes = 4 << 20

    public let subscriber: Subscriber
    private let schema: SchemaBox
    private let publisher: JetStreamPublisher
    private let route: PublishRoute
    private let thread = BlockingIOThread(name: "entitystream-publish")

    public init(publisher: JetStreamPublisher, route: PublishRoute, kinds: Set<EventKind>, schema: SchemaBox, clock: any EntityClock) {
        self.publisher = publisher
        self.route = route
        self.schema = schema
        subscriber = Subscriber(name: "jetstream", filter: EventFilter(kinds: kinds), capacity: 16_384, byteLimit: 4 << 20,
                                policy: .backPressure, clock: clock)
    }

    /// Publishes until the subscription ends, then waits up to
    /// `drainSeconds` for the last acknowledgements; returns how many
    /// messages were still unacknowledged then (0: everything is stored).
    public func run(drainSeconds: Double) async -> Int {
        var formatter = JSONLinesFormatter(format: .esri, schema: schema.schema)
        var writer = JSONWriter(capacity: 1024)
        let publisher = self.publisher
        var pending: PendingJob<Void>?
        var tokens = TrackTokens()
        let maximumMessageBytes = publisher.connection.maximumPayload
        // One batch is handed over while the next is formatted.
        func handOver(_ batch: OutgoingBatch) async {
            await pending?.value
            pending = batch.isEmpty ? nil : thread.start { publisher.publish(batch) }
        }
        while let events = await subscriber.next() {
            formatter.updateSchema(schema.schema)
            var batch = OutgoingBatch(maximumMessageBytes: maximumMessageBytes)
            batch.trackField = schema.schema.trackIDField?.name
            for index in events.indices {
                let trackToken = events[index].entity.map { tokens.token(for: $0.trackID) } ?? PublishRoute.noTrackToken
                let id: String
                if events[index].kind == .observation, let observation = events[index].observation {
                    id = route.observationID(trackToken: trackToken, observation: observation)
                } else {
                    // Events other than observations are this ingester's own facts: ids that never collide.
                    id = "\(route.serviceToken).\(trackToken).\(events[index].kind.rawValue).\(UUID().uuidString)"
                }
                writer.removeAll()
                formatter.append(events[index], to: &writer)
                let subject = route.subject(trackToken: trackToken)
                func append(to batch: inout OutgoingBatch) throws(OutgoingBatchError) {
                    try batch.append(subject: subject, id: id) { bytes in
                        // The line without its newline.
                        writer.withUnsafeBytes { line in bytes.append(contentsOf: line.prefix(max(0, line.count - 1))) }
                    }
                }
                do throws(OutgoingBatchError) {
                    do throws(OutgoingBatchError) {
                        try append(to: &batch)
                    } catch .full {
                        await handOver(batch)
                        batch.removeAll()
                        try append(to: &batch)
                    }
                } catch {
                    publisher.refuse(error)
                }
                // Buffers bounded by bytes: a batch of large lines goes out before the events end.
                if batch.byteCount >= Self.batchBytes {
                    await handOver(batch)
                    batch.removeAll()
                }
            }
            await handOver(batch)
        }
        await pending?.value
        let drained = await thread.run { publisher.drain(timeout: drainSeconds) }
        let left = publisher.totals.inFlight
        publisher.stop()
        thread.shutdown()
        return drained ? 0 : left
    }
}
