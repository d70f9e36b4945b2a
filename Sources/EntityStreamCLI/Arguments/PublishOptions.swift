import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamJetStream

/// `--publish nats://HOST:PORT/SUBJECT` and the stream flags, shared by
/// `connect`, `replay` and the demo.
struct PublishOptions {
    var address: NATSAddress?
    var stream: StreamSettings?
    var window = 4096
    /// Milliseconds an acknowledgement may take before the unacknowledged messages are sent again.
    var ackWaitMilliseconds: Int64 = 5000
    var service: String?
    private var settings = StreamSettings(name: "")
    private var sawStreamSetting: String?

    static let help = """
      Publishing to NATS JetStream:
        --publish nats://HOST:PORT[,HOST:PORT…]/SUBJECT
                                    publish every observation (and the other kinds --events names)
                                    as its JSON line on SUBJECT.<service>.<track>, acknowledged;
                                    credentials as nats://TOKEN@… or nats://USER:PASSWORD@…, or
                                    NATS_TOKEN / NATS_USER and NATS_PASSWORD (never printed)
        --publish-service NAME      the <service> token (default: the service's or file's name)
        --publish-window N          unacknowledged messages at most (default 4096; 1 to 65536)
        --publish-ack-wait MS       an acknowledgement missing this long (a broker that died) sends
                                    every unacknowledged message again, same ids (default 5000;
                                    100 to 600000)
        --create-stream NAME        create (or update) stream NAME taking SUBJECT.>
        --stream-retention limits|interest|workqueue   (default limits)
        --stream-replicas N         copies in a cluster (1 to 5, default 1)
        --stream-max-age S          drop messages older than S seconds (default 0: never)
        --stream-storage file|memory                   (default file)
        --stream-duplicate-window S seconds a repeated message id is recognised (default 120)
    """

    mutating func parse(_ flag: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch flag {
        case "--publish":
            let text = try arguments.value(for: flag)
            do { address = try NATSAddress(parsing: text, nameIs: "subject", environment: ProcessInfo.processInfo.environment) } catch {
                throw UsageError("--publish: \(error)")
            }
        case "--publish-service":
            let name = try arguments.value(for: flag)
            guard !name.isEmpty, name.utf8.count <= 200 else { throw UsageError("--publish-service expects a name of 1 to 200 bytes") }
            service = name
        case "--publish-window":
            window = try arguments.integer(for: flag, minimum: 1, maximum: 65_536)
        case "--publish-ack-wait":
            ackWaitMilliseconds = Int64(try arguments.integer(for: flag, minimum: 100, maximum: 600_000))
        case "--create-stream":
            let name = try arguments.value(for: flag)
            do { _ = try NATSAddress(parsing: "nats://h:1/\(name)", nameIs: "stream") } catch {
                throw UsageError("--create-stream: \(error)")
            }
            settings.name = name
            stream = settings
        case "--stream-retention":
            let text = try arguments.value(for: flag)
            guard let retention = StreamSettings.Retention(rawValue: text) else {
                throw UsageError("--stream-retention expects limits, interest or workqueue, not '\(text)'")
            }
            settings.retention = retention
            sawStreamSetting = flag
        case "--stream-replicas":
            settings.replicas = try arguments.integer(for: flag, minimum: 1, maximum: 5)
            sawStreamSetting = flag
        case "--stream-max-age":
            settings.maximumAgeSeconds = try arguments.seconds(for: flag, minimum: 0)
            sawStreamSetting = flag
        case "--stream-storage":
            let text = try arguments.value(for: flag)
            guard text == "file" || text == "memory" else { throw UsageError("--stream-storage expects file or memory, not '\(text)'") }
            settings.memoryStorage = text == "memory"
            sawStreamSetting = flag
        case "--stream-duplicate-window":
            settings.duplicateWindowSeconds = try arguments.seconds(for: flag, minimum: 0, inclusive: false)
            sawStreamSetting = flag
        default:
            return false
        }
        if stream != nil { stream = settings.named(stream!.name) }
        return true
    }

    func validate() throws(UsageError) {
        if address == nil {
            if stream != nil || sawStreamSetting != nil || service != nil {
                throw UsageError("--create-stream, --stream-… and --publish-service need --publish nats://HOST:PORT/SUBJECT")
            }
        } else if let flag = sawStreamSetting, stream == nil {
            throw UsageError("\(flag) sets up the stream --create-stream NAME makes; add --create-stream")
        }
    }

    /// The publishing output of a session, or nil without `--publish`.
    func output(defaultService: String, kinds: Set<EventKind>) -> PublishOutput? {
        guard let address else { return nil }
        return PublishOutput(address: address, stream: stream, window: window, ackWaitMilliseconds: ackWaitMilliseconds,
                             service: service ?? defaultService, kinds: kinds)
    }
}

extension StreamSettings {
    func named(_ name: String) -> StreamSettings {
        var copy = self
        copy.name = name
        return copy
    }
}

/// `--publish`: connects (creating the stream when asked) when the session
/// starts, then publishes what the bus carries.
struct PublishOutput: SessionOutput {
    let address: NATSAddress
    let stream: StreamSettings?
    let window: Int
    let ackWaitMilliseconds: Int64
    let service: String
    let kinds: Set<EventKind>
    /// Seconds the end of a session waits for the last acknowledgements.
    var drainSeconds = 30.0

    /// Connects and creates the stream on a thread of its own (both block, the stream up to 30 s
    /// while a cluster elects its leader).
    func start(_ pipeline: StreamPipeline) async throws -> any RunningSessionOutput {
        let thread = BlockingIOThread(name: "entitystream-publish-setup")
        defer { thread.shutdown() }
        let (publisher, address) = try await thread.run { Result { try self.connect() } }.get()
        let sink = PublishSink(publisher: publisher, route: PublishRoute(subjectPrefix: address.name, service: service),
                               kinds: kinds, schema: pipeline.schema, clock: pipeline.clock)
        return Running(sink: sink, publisher: publisher, drainSeconds: drainSeconds, address: address)
    }

    private func connect() throws -> (JetStreamPublisher, NATSAddress) {
        let connection = try NATSConnection(address: address, name: "entitystream publish \(service)", reconnectBufferBytes: 1) { status in
            Stderr.line("entitystream: publish: \(address): \(status)")
        }
        let publisher = try JetStreamPublisher(connection: connection, window: window, ackWaitMilliseconds: ackWaitMilliseconds) { problem in
            Stderr.line("entitystream: publish: \(problem)")
        }
        if let stream { try publisher.createStream(stream, subjectPrefix: address.name) }
        return (publisher, address)
    }

    struct Running: RunningSessionOutput {
        let sink: PublishSink
        let publisher: JetStreamPublisher
        let drainSeconds: Double
        let address: NATSAddress
        var subscriber: Subscriber { sink.subscriber }

        func run() async -> String? {
            let left = await sink.run(drainSeconds: drainSeconds)
            let totals = publisher.totals
            publisher.connection.close()
            Stderr.line("entitystream: publish: \(address): \(totals.stored) stored, \(totals.duplicates) duplicates, "
                        + "\(totals.resent) sent again, \(totals.abandoned) rejected")
            if left > 0 { return "publish: \(left) messages were not acknowledged within \(Int(drainSeconds)) s" }
            if totals.abandoned > 0 { return "publish: JetStream rejected \(totals.abandoned) messages" }
            return nil
        }
    }
}
