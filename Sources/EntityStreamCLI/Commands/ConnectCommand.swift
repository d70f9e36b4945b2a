import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamTransport
import EntityStreamFiles
import EntityStreamAnalyses

/// `entitystream connect URL …`: stream a live ArcGIS stream service.
struct ConnectCommand {
    var serviceURL = ""
    var stream = StreamOptions()
    var connection = ConnectionOptions()

    static let help = """
    Usage: entitystream connect URL [options]

    Connects to an ArcGIS stream service (…/StreamServer), keeps its entities
    and their track history, and prints every event as one JSON line on stdout.
    Reads control commands from stdin (see README). Ctrl-C disconnects and exits.

    Example:
      entitystream connect https://realtimegis2016.esri.com:6443/arcgis/rest/services/SandyVehicles/StreamServer \\
          --where "speed > 0" --max-duration 300

    Options:
    \(ConnectionOptions.help)
    \(StreamOptions.help)
      -h, --help                  show this help
    """

    /// `extra` sees each flag first (`serve` takes its own flags so).
    init(arguments: inout ArgumentList, extra: ExtraFlags? = nil) throws {
        while let word = try arguments.nextFlag() {
            if let extra, try extra(word, &arguments) { continue }
            if word == "-h" || word == "--help" { throw HelpRequested(text: Self.help) }
            if try stream.parse(word, from: &arguments) { continue }
            if try connection.parse(word, from: &arguments) { continue }
            if word.hasPrefix("-") { throw arguments.unknownOption(word, command: "connect") }
            guard serviceURL.isEmpty else { throw UsageError.unexpectedArgument(word, command: "connect", expected: "one service URL") }
            serviceURL = word
        }
        guard !serviceURL.isEmpty else { throw UsageError.missingArgument("the service URL (…/StreamServer)", command: "connect") }
        try stream.validate()
        let url: TransportURL
        do { url = try TransportURL(serviceURL) } catch { throw UsageError.invalidArgument(command: "connect", error: error) }
        guard !url.isWebSocket else {
            throw UsageError.malformed("connect", value: serviceURL, expected: "the service's REST URL (https://…/StreamServer)")
        }
    }

    func run() async throws -> Int32 {
        let (session, makeSource) = try await prepareSession()
        return try await session.run(makeSource: makeSource)
    }

    /// The session and how it makes its source (`serve` adds its server to them).
    func prepareSession() async throws -> (StreamSession, @Sendable (StreamPipeline) -> any SessionSource) {
        var options = connection.connectionOptions(filter: stream.filter, trackIDField: stream.trackIDField)
        var session = StreamSession(options: stream)
        (session.rasters, session.enricher) = try await stream.rasters.open()
        options.clock = session.clock
        if let output = stream.publish.output(defaultService: Self.serviceName(serviceURL), kinds: stream.events) {
            session.sideOutputs = [output]
        }
        let url = serviceURL
        return (session, { [options] pipeline in
            LiveSource(connection: StreamServiceConnection(serviceURL: url, options: options, sink: pipeline))
        })
    }
}

extension ConnectCommand {
    /// The service's name in its URL (`…/services/NAME/StreamServer`), for `--publish` subjects.
    static func serviceName(_ url: String) -> String {
        let parts = url.split(separator: "?")[0].split(separator: "/").map(String.init)
        if let server = parts.lastIndex(where: { $0.lowercased() == "streamserver" }), server > 0 { return parts[server - 1] }
        return parts.last ?? "service"
    }
}

/// Options about the connection itself (shared by `connect` and `record`).
struct ConnectionOptions {
    var token: String?
    var allowSelfSigned = false
    var allowPlaintextToken = false
    var reconnect = ReconnectPolicy()

    static let help = """
      Connection:
        --token T                   ArcGIS token for the service
        --insecure                  accept a self-signed TLS certificate (local simulator only)
        --allow-plaintext-token     send the token over plain http/ws even when the service was
                                    reached over https (a ws:// stream URL, a redirect to http);
                                    refused by default, since anyone on the network could read it
        --reconnect-attempts N      reconnection attempts before failing (default 12; first 2 at once)
        --reconnect-interval S      seconds between later attempts, ±20 % (default 10); only a
                                    connection that lasted this long (at least 1 s) resets the count
    """

    mutating func parse(_ flag: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch flag {
        case "--token":
            token = try arguments.value(for: flag)
        case "--insecure":
            allowSelfSigned = true
        case "--allow-plaintext-token":
            allowPlaintextToken = true
        case "--reconnect-attempts":
            reconnect.maximumAttempts = try arguments.integer(for: flag, minimum: 0)
        case "--reconnect-interval":
            let seconds = try arguments.seconds(for: flag, minimum: 0)
            reconnect.intervalMilliseconds = Int64(seconds * 1000)
            reconnect.stableAfterMilliseconds = reconnect.intervalMilliseconds
        default:
            return false
        }
        return true
    }

    func connectionOptions(filter: StreamFilter, trackIDField: String?) -> StreamConnectionOptions {
        var options = StreamConnectionOptions()
        options.token = token
        options.filter = filter
        options.trackIDField = trackIDField
        options.reconnectPolicy = reconnect
        options.webSocket.allowSelfSignedCertificates = allowSelfSigned
        options.http.allowSelfSignedCertificates = allowSelfSigned
        options.allowsPlaintextToken = allowPlaintextToken
        options.http.allowsRedirectToPlaintext = allowPlaintextToken
        options.selfSignedCertificateHint = "if this is the local stream-simulator, --insecure accepts its self-signed certificate"
        return options
    }
}
