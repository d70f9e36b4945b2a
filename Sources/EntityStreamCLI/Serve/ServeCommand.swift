import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import Foundation
import StreamSimulator
import EntityStreamTransport
import EntityStreamFiles
import EntityStreamJetStream

/// `entitystream serve SOURCE …`: one upstream source, many local
/// consumers. The source is what `connect` or `replay` take (chosen by
/// SOURCE's form, or named first: `serve connect URL`), with their filter,
/// store, purge, raster and output options; beside it, on one port, the
/// simulator's server serves the processed stream and its live store (see
/// ``Relay``) until Ctrl-C, SIGTERM, `--duration` or `--limit`, whatever
/// the source does.
struct ServeCommand: RunnableCommand {
    /// The kinds of source `serve` relays, tried in order (`replay`, which
    /// takes any file, last).
    static let sourceKinds: [any ServedSourceCommand.Type] = [ConnectCommand.self, ConsumeCommand.self, ReplayCommand.self]

    var source: any ServedSourceCommand
    var flags: ServeFlags

    static let help = """
    Usage: entitystream serve SOURCE [options]
           entitystream serve connect URL [options] | serve replay FILE [options]
           entitystream serve [consume] nats://HOST:PORT/STREAM [options]

    Re-serves a processed stream and its live store as ArcGIS services, on one
    port (loopback by default), with a live map page. SOURCE comes first: a
    stream service's REST URL (https://…/StreamServer, as connect takes) or a
    file (as replay takes: a recording, Esri feature JSON lines, a JSON array,
    a CSV with --columns; - for stdin), or a JetStream stream (as consume takes:
    nats://HOST:PORT/STREAM; each message is acknowledged once its observation
    is in the store, see README "Serving a JetStream stream"). One upstream
    connection, any number of local clients, each speaking the protocol its
    tools speak:

      GET  /                                             the live map page
      GET  /status                                       the source, the store, every subscriber's counts
      GET  /arcgis/rest/services/NAME/StreamServer       the stream service (keepLatestArchive: NAME_Latest)
      WS   /arcgis/ws/services/NAME/StreamServer/subscribe
                                                         every observation as it arrives, through each
                                                         client's filter (where, geometry, outFields, outSR)
      GET  /arcgis/rest/services/NAME_Latest/FeatureServer/0[/query]
                                                         each entity's latest observation
      GET  /arcgis/rest/services/NAME_Tracks/FeatureServer/0[/query]
                                                         the retained history: time, outStatistics,
                                                         groupByFieldsForStatistics, having, orderByFields,
                                                         paging, outSR (also as MapServer/0)
      GET  /arcgis/rest/services/NAME/GPServer/911 Calls Hotspot
                                                         hot spots of the retained observations (submitJob, jobs)

    It keeps serving when the source ends or fails (the store stays; /status
    and the page say so) until Ctrl-C, SIGTERM, --duration or --limit. JSON
    lines on stdout as connect prints them (by default only status, error,
    response, analysis and dropped events; --events all adds observations).

    Serving:
      --port P                    port (default 6080; 0 picks a free one, printed on stderr)
      --host ADDRESS              listen on exactly this address (default 127.0.0.1; ::1, 0.0.0.0, ::)
      --name NAME                 the services' name (default: the source's service or file name)
      --token T                   require token T from this server's clients (token=T, or
                                  X-Esri-Authorization: Bearer T; the description hands it to sockets)
      --tls-cert FILE --tls-key FILE
                                  serve https and wss
      --cors-origins LIST         origins browsers may read answers from (default *, as ArcGIS Server)
      --slow-clients drop|close   a subscriber whose queue is full: drop its oldest queued messages and
                                  count them (drop, the default), or close it with 1008 (close; ArcGIS
                                  clients reconnect and prime again from NAME_Latest)
      --client-queue BYTES        queued bytes per subscriber before that applies (default 512K; K, M allowed)
      --max-clients N             subscribers at once (default 256; beyond, upgrades get 503)
      --max-record-count N        most features one layer query answers (default 2000)
    Source (connect):
      --upstream-token T          the upstream service's token (never forwarded, printed or stored)
    \(ConnectionOptions.help)
    Source (replay): --interval MS, --speed X, --loop, --columns MAPPING (see entitystream replay --help)
    Source (consume): --durable NAME, --from-start, --since TIME, --from-sequence N, --partition K/N,
                      --batch N, --ack-wait S … (see entitystream consume --help)
    \(StreamOptions.help)
      -h, --help                  show this help

    Examples:
      entitystream serve https://realtimegis2016.esri.com:6443/arcgis/rest/services/SandyVehicles/StreamServer --port 6080
      entitystream serve ../shared/data/tracks/AIS_MarineCadastre_SelectedVessels_CustomDataSource.json \\
          --track-field MMSI --interval 10 --loop --name Vessels --port 0
    """

    init(arguments: inout ArgumentList) throws {
        guard var first = try arguments.next() else { throw UsageError.missingArgument("the SOURCE (a …/StreamServer URL or a file)", command: "serve") }
        if first == "-h" || first == "--help" { throw HelpRequested(text: Self.help) }
        if first == "--version" { throw VersionRequested() }
        var kind = Self.sourceKinds.first { $0.commandName == first }
        if kind != nil {
            guard let next = try arguments.next() else { throw UsageError.missingArgument("the SOURCE", command: "serve \(first)") }
            first = next
        }
        if first.hasPrefix("-") && first != "-" {
            throw UsageError.unexpectedArgument(first, command: "serve", expected: "the SOURCE first (entitystream serve SOURCE [options])")
        }
        let chosen = kind ?? Self.sourceKinds.first { $0.accepts(first) } ?? ReplayCommand.self
        kind = chosen
        let flags = ServeFlags()
        var rest = ArgumentList([first] + arguments.remainingWords)
        var source = try chosen.init(arguments: &rest, extra: { word, list in try flags.parse(word, from: &list) })
        if let token = flags.upstreamToken { try source.useUpstreamToken(token) }
        if !flags.eventsGiven {
            source.streamOptions.events = ServeFlags.defaultEvents.union(source.streamOptions.limit != nil ? [.observation] : [])
        }
        try source.checkServable()
        try flags.validate()
        if flags.name == nil { flags.name = source.suggestedServiceName }
        self.source = source
        self.flags = flags
    }

    func run() async throws -> Int32 {
        guard let (prepared, makeSource) = try await source.prepareServedSession() else { return 1 }
        var session = prepared
        session.runsUntilStopped = true
        session.companion = Relay(name: flags.name ?? "Stream", configuration: flags.configuration())
        return try await session.run(makeSource: makeSource)
    }
}

/// `serve`'s own flags, taken before the source's parser sees them.
final class ServeFlags {
    var port = 6080
    var host: String? = "127.0.0.1"
    var name: String?
    var token: String?
    var tlsCertificate: String?
    var tlsKey: String?
    var cors = CORSPolicy()
    var upstreamToken: String?
    var slowClients = SlowClientPolicy.dropOldest
    var clientQueueBytes = 512 * 1024
    var maximumClients = 256
    var maxRecordCount = 2000
    var eventsGiven = false

    /// What `serve` prints on stdout unless `--events` says otherwise.
    static let defaultEvents: Set<EventKind> = [.status, .error, .response, .analysis, .dropped]

    /// Takes `flag` (and its value) if it is one of serve's; false if not.
    func parse(_ flag: String, from arguments: inout ArgumentList) throws -> Bool {
        switch flag {
        case "-h", "--help": throw HelpRequested(text: ServeCommand.help)
        case "--port": port = try arguments.integer(for: flag, minimum: 0, maximum: 65535)
        case "--host":
            host = try arguments.value(for: flag, ListenAddress.checkedUsable)
        case "--name":
            let text = try arguments.value(for: flag)
            guard Self.isServiceName(text) else { throw UsageError.malformed(flag, value: text, expected: "letters, digits, '_' or '-' (at most 100)") }
            name = text
        case "--token":
            token = try arguments.nonEmptyValue(for: flag)
        case "--upstream-token":
            upstreamToken = try arguments.value(for: flag)
        case "--tls-cert": tlsCertificate = try arguments.value(for: flag)
        case "--tls-key": tlsKey = try arguments.value(for: flag)
        case "--cors-origins":
            let text = try arguments.value(for: flag)
            do { cors = try CORSPolicy.parse(text) } catch { throw UsageError.invalidSpecification(flag: flag, error: error) }
        case "--slow-clients":
            slowClients = try arguments.choice(for: flag, among: ["drop", "close"]) == "drop" ? .dropOldest : .disconnect
        case "--client-queue": clientQueueBytes = try Self.bytes(arguments.value(for: flag), flag: flag)
        case "--max-clients": maximumClients = try arguments.integer(for: flag, minimum: 1, maximum: 100_000)
        case "--max-record-count": maxRecordCount = try arguments.integer(for: flag, minimum: 1, maximum: 1_000_000)
        case "--events":
            eventsGiven = true
            return false
        default:
            return false
        }
        return true
    }

    func validate() throws(UsageError) {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw .together(["--tls-cert", "--tls-key"]) }
    }

    /// Where and how the server serves.
    func configuration() -> SimulatorConfiguration {
        var configuration = SimulatorConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.token = token
        configuration.cors = cors
        if let tlsCertificate, let tlsKey { configuration.tls = TLSFiles(certificatePath: tlsCertificate, privateKeyPath: tlsKey) }
        configuration.slowClientPolicy = slowClients
        configuration.clientQueueBytes = clientQueueBytes
        configuration.maximumClients = maximumClients
        configuration.maxRecordCount = maxRecordCount
        configuration.log = { Stderr.line("entitystream: serve: \($0)") }
        return configuration
    }

    static func isServiceName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 100 && text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" }
    }

    /// A byte count: digits with an optional K or M (KiB, MiB), 1 KiB to 1 GiB.
    static func bytes(_ text: String, flag: String) throws(UsageError) -> Int {
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last?.uppercased() {
            if last == "K" { unit = 1024; digits.removeLast() } else if last == "M" { unit = 1 << 20; digits.removeLast() }
        }
        guard let number = Int(digits), number > 0, number <= (1 << 30) / unit, number * unit >= 1024 else {
            throw .malformed(flag, value: text, expected: "a size from 1K to 1024M (bytes, or with K or M)")
        }
        return number * unit
    }

    /// A service name made of `text`'s letters, digits, `_` and `-` (others become `_`).
    static func serviceName(from text: String, fallback: String) -> String {
        let name = String(text.prefix(100).map { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" ? $0 : "_" })
        return name.isEmpty ? fallback : name
    }
}

/// A command whose source `serve` relays: it parses SOURCE and its own
/// options with its own parser (``ServeFlags`` sees each flag first) and
/// prepares the same session it would run, to which `serve` adds its server.
protocol ServedSourceCommand {
    /// The command's name, which may precede SOURCE (`serve connect URL`).
    static var commandName: String { get }
    /// True when SOURCE is one of this kind's (a `connect` URL, a `replay` file).
    static func accepts(_ source: String) -> Bool
    init(arguments: inout ArgumentList, extra: ExtraFlags?) throws
    /// The output and store options (serve changes the default `--events`).
    var streamOptions: StreamOptions { get set }
    /// The services' name SOURCE suggests (`--name` overrides it).
    var suggestedServiceName: String { get }
    /// Uses `token` for the upstream service; kinds without one refuse it.
    mutating func useUpstreamToken(_ token: String) throws(UsageError)
    /// Refuses options that make no sense under `serve`.
    func checkServable() throws(UsageError)
    /// The session and how it makes its source; nil when it cannot start (said on stderr).
    func prepareServedSession() async throws -> (StreamSession, @Sendable (StreamPipeline) -> any SessionSource)?
}

extension ConnectCommand: ServedSourceCommand {
    static var commandName: String { "connect" }
    static func accepts(_ source: String) -> Bool {
        let lowered = source.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }
    var streamOptions: StreamOptions {
        get { stream }
        set { stream = newValue }
    }
    /// The service's name in its URL (`…/services/[folder/]NAME/StreamServer`).
    var suggestedServiceName: String {
        let path = serviceURL.split(separator: "?").first.map(String.init) ?? serviceURL
        let parts = path.split(separator: "/").map(String.init)
        if let index = parts.lastIndex(where: { $0.lowercased() == "streamserver" }), index > 0 {
            return ServeFlags.serviceName(from: parts[index - 1], fallback: "Stream")
        }
        return "Stream"
    }
    mutating func useUpstreamToken(_ token: String) throws(UsageError) { connection.token = token }
    func checkServable() throws(UsageError) {}
    func prepareServedSession() async throws -> (StreamSession, @Sendable (StreamPipeline) -> any SessionSource)? {
        try await prepareSession()
    }
}

extension ReplayCommand: ServedSourceCommand {
    static var commandName: String { "replay" }
    static func accepts(_ source: String) -> Bool { true }
    var streamOptions: StreamOptions {
        get { stream }
        set { stream = newValue }
    }
    /// The file's base name (`Replay` for stdin).
    var suggestedServiceName: String {
        guard path != "-" else { return "Replay" }
        return ServeFlags.serviceName(from: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent, fallback: "Replay")
    }
    mutating func useUpstreamToken(_ token: String) throws(UsageError) {
        throw .notApplicable(["--upstream-token"], command: "serve", scope: "a stream service URL", advice: "a replay reads a file")
    }
    func checkServable() throws(UsageError) {
        if hold {
            throw .notApplicable(["--hold"], command: "serve", scope: "replay",
                                 advice: "serve keeps serving the store after the replay ends, until stopped")
        }
    }
    func prepareServedSession() async throws -> (StreamSession, @Sendable (StreamPipeline) -> any SessionSource)? {
        try await prepareSession()
    }
}

extension ConsumeCommand: ServedSourceCommand {
    static var commandName: String { "consume" }
    static func accepts(_ source: String) -> Bool { source.lowercased().hasPrefix("nats://") }
    var streamOptions: StreamOptions {
        get { stream }
        set { stream = newValue }
    }
    /// The stream's name.
    var suggestedServiceName: String { ServeFlags.serviceName(from: address?.name ?? "", fallback: "Stream") }
    mutating func useUpstreamToken(_ token: String) throws(UsageError) {
        throw .notApplicable(["--upstream-token"], command: "serve", scope: "a stream service URL",
                             advice: "give NATS credentials in the nats:// URL or NATS_TOKEN")
    }
    func checkServable() throws(UsageError) {}
    func prepareServedSession() async throws -> (StreamSession, @Sendable (StreamPipeline) -> any SessionSource)? {
        try await prepareSession()
    }
}

/// A parser that sees each flag before a command's own: true when it took
/// the flag (and its value) from the list.
typealias ExtraFlags = (String, inout ArgumentList) throws -> Bool
