import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamJetStream
import EntityStreamModel
import EntityStreamAnalyses

/// `entitystream consume nats://HOST:PORT/STREAM …`: a JetStream stream as
/// a session's source, with the same store, output, control commands and
/// analyses as `connect` and `replay`.
struct ConsumeCommand {
    var address: NATSAddress?
    var settings = ConsumerSettings()
    var stream = StreamOptions()
    var fleetGroup: String?
    var answersFleet = true
    /// Acknowledge a message once its observation is in the store (and on
    /// the bus), not once its line is written: `serve consume …`, where the
    /// relay's store and subscribers, not standard output, take the stream.
    var acknowledgesOnStore = false

    static let help = """
    Usage: entitystream consume nats://HOST:PORT[,HOST:PORT…]/STREAM [options]

    Reads a JetStream stream that `--publish` fills, into the entity store,
    and prints every event as one JSON line on stdout, like connect and
    replay. A message is acknowledged only once its observation has been
    stored and its line written: a consumer killed and started again with
    the same --durable name goes on where it stopped, and the lines it had
    written but not yet acknowledged (fewer than four --batch es: 4096
    messages by default) come again marked "redelivered":true,"deliveries":N.

    Example:
      entitystream consume nats://127.0.0.1:4222/AIS --durable ais-0 --partition 0/4 --from-start

    Options:
      Consumer:
        --durable NAME              a durable consumer: its position survives restarts
                                    (without it, an ephemeral consumer the server forgets)
        --from-start                a new consumer starts at the stream's first message
        --since TIME                … at the first message stored at or after TIME
                                    (ISO-8601 or epoch milliseconds)
        --from-sequence N           … at stream sequence N
                                    (default: only messages published from now on; an existing
                                    durable consumer goes on where it stopped and ignores these)
        --until-caught-up           stop once every message there was for the consumer when it
                                    started has been delivered, written and acknowledged (the
                                    stream's last message then, or the first delivered with none
                                    pending after it), exit status 0; with no message pending at
                                    start it stops at once
        --partition K/N             take partition K (0 to N-1) of N: the tracks the server's
                                    subject mapping partition(N,1,2) puts there (see README)
        --batch N                   messages per fetch (default 1024; 1 to 8192)
        --max-ack-pending N         unacknowledged messages the server allows (default 16384)
        --ack-wait S                seconds before an unacknowledged message is delivered again
                                    (default 5: what a killed consumer fetched but never wrote
                                    comes to its successor after at most S seconds)
      Fleet queries (entitystream fleet):
        --fleet-group NAME          answer fleet-wide statistics for group NAME
                                    (default: the stream's name)
        --no-fleet                  do not answer fleet queries
    \(StreamOptions.help)
      -h, --help                  show this help
    """

    /// `extra` is `serve`'s parser, which sees each flag first: the consumer
    /// then feeds a relay, not standard output, and acknowledges a message
    /// once its observation is in the store (``acknowledgesOnStore``).
    init(arguments: inout ArgumentList, extra: ExtraFlags? = nil) throws {
        acknowledgesOnStore = extra != nil
        var starts: [String] = []
        while let word = try arguments.next() {
            if let extra, try extra(word, &arguments) { continue }
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--durable":
                settings.durable = try arguments.value(for: word, NATSAddress.checkName(is: "consumer name"))
            case "--from-start":
                settings.start = .first
                starts.append(word)
            case "--since":
                settings.start = .time(try arguments.instant(for: word))
                starts.append(word)
            case "--from-sequence":
                settings.start = .sequence(UInt64(try arguments.integer(for: word, minimum: 1)))
                starts.append(word)
            case "--until-caught-up":
                settings.untilCaughtUp = true
            case "--partition":
                settings.partition = try arguments.value(for: word) { text in try TrackPartition(parsing: text) }
            case "--batch":
                settings.batch = try arguments.integer(for: word, minimum: 1, maximum: 8192)
            case "--fleet-group":
                fleetGroup = try arguments.value(for: word, NATSAddress.checkName(is: "fleet group"))
            case "--no-fleet":
                answersFleet = false
            case "--ack-wait":
                settings.ackWaitSeconds = try arguments.integer(for: word, minimum: 1, maximum: 3600)
            case "--max-ack-pending":
                settings.maximumAckPending = try arguments.integer(for: word, minimum: 1, maximum: 1 << 20)
            default:
                if try stream.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") { throw arguments.unknownOption(word, command: "consume") }
                guard address == nil else { throw UsageError.unexpectedArgument(word, command: "consume", expected: "one nats://HOST:PORT/STREAM") }
                do { address = try NATSAddress(parsing: word, nameIs: "stream", environment: ProcessInfo.processInfo.environment) } catch {
                    throw UsageError.invalidArgument(command: "consume", error: error)
                }
            }
        }
        guard address != nil else { throw UsageError.missingArgument("the stream, nats://HOST:PORT/STREAM", command: "consume") }
        if starts.count > 1 { throw UsageError.conflicting(starts, command: "consume") }
        try stream.validate()
        if stream.publish.address != nil { throw UsageError.notApplicable(["--publish"], command: "consume", scope: "connect, replay and the demo") }
        if stream.filter != StreamFilter() {
            throw UsageError.notApplicable(["--where", "--geometry", "--out-fields", "--out-sr"], command: "consume", scope: "a service",
                                           advice: "query the store instead (query-observations)")
        }
        if !acknowledgesOnStore {
            if stream.dropWhenSlow {
                throw UsageError.notApplicable(["--drop-when-slow"], command: "consume", scope: "connect, replay and the demo",
                                               advice: "consume waits instead (dropping would acknowledge lines never written)")
            }
            if !stream.events.contains(.observation) {
                throw UsageError.requires("consume", needs: "observation in --events", reason: "it acknowledges a message once its observation line is written")
            }
        }
    }

    func run() async throws -> Int32 {
        guard let (session, makeSource) = try await prepareSession() else { return 2 }
        return try await session.run(makeSource: makeSource)
    }

    /// The session and how it makes its source (`serve` adds its server to
    /// them): connects, creates or continues the consumer (said on stderr).
    func prepareSession() async throws -> (StreamSession, @Sendable (StreamPipeline) -> any SessionSource)? {
        guard let address else { return nil }
        let connection = try NATSConnection(address: address, name: "entitystream consume \(settings.durable ?? "")") { status in
            Stderr.line("entitystream: consume: \(address): \(status)")
        }
        let consumer = try JetStreamConsumer(connection: connection, stream: address.name, settings: settings)
        Stderr.line("entitystream: consume: \(address): \(consumer.startDescription)"
                    + (settings.partition.map { ", partition \($0)" } ?? "")
                    + (acknowledgesOnStore ? "; acknowledging each message once its observation is in the store" : ""))
        var session = StreamSession(options: stream)
        let marks = DeliveryMarks()
        let (rasters, enricher) = try await stream.rasters.open()
        session.rasters = rasters
        session.enricher = DeliveryEnricher(inner: enricher, marks: marks)
        let counters = session.writtenCounters
        let group = fleetGroup ?? address.name
        let answers = answersFleet
        let onStore = acknowledgesOnStore
        let member = settings.durable ?? "ephemeral-\(ProcessInfo.processInfo.processIdentifier)"
        let partition = settings.partition
        let makeSource: @Sendable (StreamPipeline) -> any SessionSource = { pipeline in
            let done: @Sendable () -> Int
            if onStore { done = { pipeline.observationsStored } } else { done = { counters.observationsFlushed } }
            let fleet = answers ? FleetResponder(connection: connection, group: group, member: member, partition: partition,
                                                 store: pipeline.store) : nil
            return ConsumeRun(consumer: consumer, pipeline: pipeline, marks: marks, done: done, fleet: fleet)
        }
        return (session, makeSource)
    }
}

/// A JetStream consumer as a session's source.
struct ConsumeRun: SessionSource, ControlTarget {
    let consumer: JetStreamConsumer
    let pipeline: StreamPipeline
    let marks: DeliveryMarks
    /// How many observations are done with: written to standard output
    /// (`consume`), or in the store (`serve consume`); what may be acknowledged.
    let done: @Sendable () -> Int
    let fleet: FleetResponder?

    var controlTarget: any ControlTarget { self }

    func run() async -> String? {
        if let fleet {
            do { try fleet.start() } catch { return "\(error)" }
        }
        let failure = await consumer.run(into: pipeline, written: done, marks: marks)
        fleet?.stop()
        let counts = consumer.currentCounts
        Stderr.line("entitystream: consume: \(counts.messages) messages (\(counts.observations) observations, \(counts.redelivered) redelivered, "
                    + "\(counts.otherEvents) other events), \(counts.acknowledged) acknowledged" + (counts.caughtUp ? "; caught up" : ""))
        consumer.connection.close()
        return failure
    }

    func stop() async {}

    func setFilter(_ filter: StreamFilter) async -> FilterOutcome {
        let outcome = FilterOutcome(result: .rejected, requested: filter,
                                    error: "a JetStream stream is not filtered: every message is kept; query the store instead")
        await pipeline.publish(StreamEvent(time: pipeline.clock.now(), payload: .filter(outcome)))
        return outcome
    }

    /// What `serve` says of the stream: the JetStream stream it reads.
    func streamFacts() async -> SourceStreamFacts {
        SourceStreamFacts(description: "JetStream stream \(consumer.connection.address.description)", spatialReference: nil)
    }

    func sourceStatus() async -> any SourceStatus {
        ConsumeSourceStatus(stream: consumer.connection.address.description, durable: consumer.settings.durable,
                            partition: consumer.settings.partition?.description, counts: consumer.currentCounts)
    }
}

/// What a JetStream consumer says of itself: consuming, the stream, its
/// durable name and partition (when it has them), and its message counts.
struct ConsumeSourceStatus: SourceStatus {
    var stream: String
    var durable: String?
    var partition: String?
    var counts: JetStreamConsumer.Counts

    var status: StreamStatus { .consuming }

    var json: JSONObject {
        var facts = JSONObject()
        facts.append(key: "status", value: .string(status.description))
        facts.append(key: "stream", value: .string(stream))
        if let durable { facts.append(key: "durable", value: .string(durable)) }
        if let partition { facts.append(key: "partition", value: .string(partition)) }
        facts.append(key: "messages", value: .int(Int64(counts.messages)))
        facts.append(key: "redelivered", value: .int(Int64(counts.redelivered)))
        facts.append(key: "acknowledged", value: .int(Int64(counts.acknowledged)))
        facts.append(key: "lastStreamSequence", value: .int(Int64(counts.lastStreamSequence)))
        return facts
    }
}
