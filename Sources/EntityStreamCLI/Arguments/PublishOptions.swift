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
            address = try arguments.value(for: flag) { text in
                try NATSAddress(parsing: text, nameIs: "subject", environment: ProcessInfo.processInfo.environment)
            }
        case "--publish-service":
            let name = try arguments.value(for: flag)
            guard !name.isEmpty, name.utf8.count <= 200 else { throw .malformed(flag, value: name, expected: "a name of 1 to 200 bytes") }
            service = name
        case "--publish-window":
            window = try arguments.integer(for: flag, minimum: 1, maximum: 65_536)
        case "--publish-ack-wait":
            ackWaitMilliseconds = Int64(try arguments.integer(for: flag, minimum: 100, maximum: 600_000))
        case "--create-stream":
            settings.name = try arguments.value(for: flag, NATSAddress.checkName(is: "stream"))
            stream = settings
        case "--stream-retention":
            settings.retention = try arguments.choice(for: flag, among: StreamSettings.Retention.allCases)
            sawStreamSetting = flag
        case "--stream-replicas":
            settings.replicas = try arguments.integer(for: flag, minimum: 1, maximum: 5)
            sawStreamSetting = flag
        case "--stream-max-age":
            settings.maximumAgeSeconds = try arguments.seconds(for: flag, minimum: 0)
            sawStreamSetting = flag
        case "--stream-storage":
            settings.memoryStorage = try arguments.choice(for: flag, among: ["file", "memory"]) == "memory"
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
            let given = stream != nil ? "--create-stream" : sawStreamSetting ?? (service != nil ? "--publish-service" : nil)
            if let given { throw .requires(given, needs: "--publish nats://HOST:PORT/SUBJECT") }
        } else if let flag = sawStreamSetting, stream == nil {
            throw .requires(flag, needs: "--create-stream NAME", reason: "it sets up the stream --create-stream makes")
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

extension NATSAddress {
    /// Checks a JetStream name (`--create-stream`, `--durable`, `--fleet-group`) as
    /// a stream's name in a `nats://` address is checked, `what` naming it in the error.
    static func checkName(is what: String) -> (String) throws(NATSAddressError) -> String {
        { name throws(NATSAddressError) in
            _ = try NATSAddress(parsing: "nats://h:1/\(name)", nameIs: what)
            return name
        }
    }
}
