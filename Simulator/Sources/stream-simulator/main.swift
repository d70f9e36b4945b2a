import EntityStreamCommandLine
import EntityStreamCore
import Foundation
import EntityStreamLocking
import EntityStreamProjection
import StreamSimulator
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// `stream-simulator`: an ArcGIS stream-service emulator on loopback.
/// See `stream-simulator --help` and README.md.

// First thing: from here on SIGINT and SIGTERM go to the stop-signal thread, never lost (a
// signal before the server starts ends the program at once with status 0), and a closed
// stdout or stderr is a failed write, never a SIGPIPE.
StopSignals.install()
signal(SIGPIPE, SIG_IGN)

let help = """
Usage: stream-simulator [options]

Serves ArcGIS stream services and feature layers on one port, speaking the real protocols:
  GET  /arcgis/rest/services/<Name>/StreamServer?f=json     the service description
  WS   /arcgis/ws/services/<Name>/StreamServer/subscribe    one Esri feature JSON per frame
  GET  /arcgis/rest/services/<Name>/MapServer/0?f=json      a layer's description (also FeatureServer/0)
  GET|POST /arcgis/rest/services/<Name>/MapServer/0/query   query it (f=json, pjson or geojson; every
       parameter of ArcGIS's Query operation is accepted)
  GET  /arcgis/rest/services/<Name>/FeatureServer[/layers]  the service root, every layer's description
  GET  /arcgis/rest/info                                    version and authentication
  OPTIONS any of them                                       CORS preflight (204)
  GET  /arcgis/rest/services/<Name>/GPServer/911 Calls Hotspot   a hot-spot task (submitJob, jobs/<id>,
       jobs/<id>/results/Output_Features, jobs/<id>/cancel; results also as …/<Name>/MapServer/jobs/<id>/0)

What to serve (at least one):
  --fleet N                     a generated snowplow fleet of N vehicles, named SandyVehicles; each fleet
                                service NAME also serves NAME_Latest (its latest report per vehicle, kept
                                current; the description's keepLatestArchive) and NAME_Vehicles (one row
                                per vehicle: vehiclename, depot, modelyear; relatedFeatures, joinField
                                vehiclename), both as …/FeatureServer/0 and …/MapServer/0
  --no-archive                  fleets serve no NAME_Latest archive (keepLatestArchive null)
  --no-related                  fleets serve no NAME_Vehicles table (relatedFeatures null)
  --recording FILE              a recording (entitystream record), Esri feature JSON lines,
                                a JSON array of features, or a CSV of tracks (with --columns)
  --service NAME=FILE|fleet:N   add a named service (repeatable), e.g. Vessels=ais.json
  --track-field F               track-id field for files that name none (e.g. MMSI)
Feature layers:
  --layer NAME=FILE             serve FILE as layer NAME (repeatable): a CSV (points from x/lon/longitude
                                and y/lat/latitude columns, or a table without them), Esri feature JSON
                                lines, an Esri JSON array or FeatureSet, GeoJSON, or a recording
  --max-record-count N          most features one query answers (default 2000)
  --stream-layers-over BYTES    a layer file larger than BYTES (default 67108864, 64 MiB) in a format
                                that streams (CSV, JSON lines, GeoJSON sequence, recording) is not
                                loaded: each query reads the file, in bounded memory (0: always)
Hot-spot geoprocessing services (the "Analyze hotspots" sample's 911 Calls Hotspot task):
  --hotspots NAME=FILE          serve FILE's incidents as …/NAME/GPServer/911 Calls Hotspot (repeatable);
                                its Query parameter selects incidents ("DATE" names their time field)
  --job-delay MS                each job stays MS in each status (submitted, waiting, executing, cancelling)
  --job-execution MS            each job executes at least MS (default: --job-delay); a cancel cuts it short
  --no-layer-pagination         layers answer as servers before 10.3 did: no supportsPagination, and
                                resultOffset/resultRecordCount ignored (clients page by object ids)
Reading the files (NAME= applies to the service, layer or task of that name; without it, to every file
that has none of its own):
  --columns [NAME=]x=COL,y=COL,time=COL[,end=COL][,track=COL][,oid=COL]
                                which columns are x, y, time (time=none: no time), interval end, track
                                id, object id; a CSV of tracks (--recording, --service) needs track,
                                time, x and y (track= may be left to --track-field)
  --in-sr [NAME=]SR             the spatial reference of the coordinates (default: the file's own, else
                                4326): a WKID, EPSG:n, ESRI:n or WKT
  --file-format [NAME=]FORMAT   force the format: csv, esri-lines, esri-array, esri-featureset, geojson,
                                geojsonseq, recording (default: recognised)
Pacing:
  --speed X                     recorded timing X times faster (recordings, CSV) (default 1;
                                0.000001 to 1000000)
  --interval MS                 pause between messages of untimed files (default 10; at most
                                1000000000000, about 31 years)
  --loop                        start again at the end
  --burst                       send as fast as each socket takes (benchmarks)
  --seed S                      fleet random seed (default 1)
  --rate R                      fleet observations per second per vehicle (default 1; 0.001 to 1000)
Network and security:
  --port P                      port (default 6180; 0 picks a free one, printed on stderr)
  --host ADDRESS                listen on exactly this address of this machine (default 127.0.0.1;
                                ::1 for IPv6 loopback; 0.0.0.0 every IPv4 interface; :: every interface)
  --token T                     require token T on the descriptions, the socket and layer queries (REST
                                requests may send it as token=T or X-Esri-Authorization: Bearer T)
  --cors-origins LIST           origins allowed to read the REST answers from a browser, comma-separated
                                (default *: every origin, as ArcGIS Server; others get no CORS headers,
                                their preflights and WebSocket upgrades 403)
  --tls-cert FILE --tls-key FILE
                                serve https/wss (stream services and layers)
Faults (each announced on stderr when it fires):
  --drop-after N                drop each connection abruptly after N messages
  --close-code C[:reason]       close each connection with code C: at once, or after --drop-after N
  --malformed-every N           corrupt every Nth message
  --stall MS                    stop sending for MS ms after --stall-after messages (default 100)
  --reject-first N              refuse the first N WebSocket upgrades with HTTP 503
  --expire-token-after S        every S seconds issue a new socket token and close
                                connections using the old one with 4401
  -h, --help                    show this help
  --version                     print the version

A flag's value may also be attached: --port=6180. Still read, deprecated: --csv (--columns),
--layer-columns and --hotspots-columns NAME=… (--columns NAME=…), --layer-format (--file-format),
and wkid=N in a column mapping (--in-sr).

Examples:
  stream-simulator --fleet 25 --port 0
  stream-simulator --layer Hurricanes=hurdat2_2000_season_flat.csv --port 0
  stream-simulator --hotspots Burglary=portland_nij_cfs_burglary_2012-03_2016-08.csv \\
      --columns Burglary=x=x_coordina,y=y_coordina,time=occ_date --in-sr Burglary=2913 --job-delay 500 --port 0
"""

/// One line on stderr. A closed or failing stderr is ignored: faults are announced there, and a
/// reader that stopped reading (`2>&1 | head -1`) must not stop the server.
func log(_ text: String) {
    try? FileDescriptorOutput.standardError.write("stream-simulator: \(text)\n")
}

/// Deprecated spellings still read.
let aliases = ["--csv": "--columns", "--layer-columns": "--columns", "--hotspots-columns": "--columns", "--layer-format": "--file-format"]

/// `[NAME=]VALUE` of a per-file flag: named when the text starts with a
/// name (letters, digits, `_`, `-`) and `=`, and `isNamed` agrees given the
/// rest (for `--columns`, the rest is itself a `key=…` list).
func perFile(_ text: String, flag: String, what: String, isNamed: (String) -> Bool = { _ in true }) throws -> (name: String?, value: String) {
    guard let equals = text.firstIndex(of: "="),
          text[..<equals].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }),
          isNamed(String(text[text.index(after: equals)...])) else { return (nil, text) }
    do {
        let (name, value) = try LayerSpecification.split(text, flag: flag, what: what)
        return (name, value)
    } catch {
        throw UsageError.invalidSpecification(flag: flag, error: error)
    }
}

/// The per-file options (`--columns`, `--in-sr`, `--file-format`), by the
/// name they were given for (nil: every file without its own).
struct PerFileOptions {
    let columns: [String?: FeatureColumnMapping]
    let inputReferences: [String?: Int]
    let fileFormats: [String?: FeatureFileFormat]
    let trackField: String?

    /// The track CSV mapping of service `name`: its own --columns, else the unnamed one.
    func trackMapping(_ name: String) throws -> CSVColumnMapping? {
        guard let mapping = columns[name] ?? columns[nil] else { return nil }
        do { return try CSVColumnMapping(columns: mapping, trackField: trackField) } catch { throw UsageError.invalidValue(flag: "--columns", error: error) }
    }

    /// The load options of layer or task `name`: its own columns, SR and format, else the unnamed ones.
    func loadOptions(_ name: String) -> FeatureLoadOptions {
        var options = FeatureLoadOptions()
        if let mapping = columns[name] ?? columns[nil] { options.mapping = mapping }
        if let wkid = inputReferences[name] ?? inputReferences[nil] { options.mapping.wkid = wkid }
        options.format = fileFormats[name] ?? fileFormats[nil]
        return options
    }
}

func parse(_ words: [String]) throws -> SimulatorConfiguration? {
    var configuration = SimulatorConfiguration()
    configuration.port = 6180
    configuration.log = { log($0) }
    var fleet = FleetConfiguration()
    var fleetCount: Int?
    var recordings: [String] = []
    var namedServices: [String] = []
    var layerTexts: [String] = []
    var hotSpotTexts: [String] = []
    var columns: [String?: FeatureColumnMapping] = [:]
    var inputReferences: [String?: Int] = [:]
    var fileFormats: [String?: FeatureFileFormat] = [:]
    var tlsCertificate: String?
    var tlsKey: String?
    var arguments = ArgumentList(words, program: "stream-simulator")
    arguments.aliases = aliases
    while let word = try arguments.nextFlag() {
        switch word {
        case "-h", "--help", "help": return nil
        case "--fleet": fleetCount = try arguments.integer(for: word, minimum: 1)
        case "--recording": recordings.append(try arguments.value(for: word))
        case "--service": namedServices.append(try arguments.value(for: word))
        case "--track-field": configuration.trackIDField = try arguments.value(for: word)
        case "--layer": layerTexts.append(try arguments.value(for: word))
        case "--columns":
            let (name, text) = try perFile(try arguments.value(for: word), flag: word, what: "x=COL,y=COL,…") { rest in
                rest.split(separator: ",").first?.contains("=") == true
            }
            guard columns[name] == nil else { throw UsageError.repeated(flag: "--columns \(name.map { "\($0)=" } ?? "")…") }
            columns[name] = try ArgumentList.columnMapping(text, flag: word, program: "stream-simulator")
        case "--in-sr":
            let text = try arguments.value(for: word)
            let (name, value) = try perFile(text, flag: word, what: "SR")
            do { inputReferences[name] = try SpatialReference.parse(text: value).code } catch { throw UsageError.invalidValue(flag: word, error: error) }
        case "--file-format":
            let (name, text) = try perFile(try arguments.value(for: word), flag: word, what: "FORMAT")
            fileFormats[name] = try ArgumentList.fileFormat(text, flag: word)
        case "--hotspots": hotSpotTexts.append(try arguments.value(for: word))
        case "--job-delay": configuration.jobDelayMilliseconds = Int64(try arguments.integer(for: word, minimum: 0, maximum: 3_600_000))
        case "--job-execution": configuration.jobExecutionMilliseconds = Int64(try arguments.integer(for: word, minimum: 0, maximum: 3_600_000))
        case "--max-record-count": configuration.maxRecordCount = try arguments.integer(for: word, minimum: 1)
        case "--stream-layers-over": configuration.layerStreamingThreshold = try arguments.integer(for: word, minimum: 0)
        case "--no-layer-pagination": configuration.layerPagination = false
        case "--no-archive": configuration.fleetArchive = false
        case "--no-related": configuration.fleetRelated = false
        case "--speed": configuration.pacing.speed = try arguments.speed(for: word)
        case "--interval": configuration.pacing.intervalMilliseconds = try arguments.milliseconds(for: word, minimum: 0)
        case "--loop": configuration.pacing.loop = true
        case "--burst": configuration.pacing.burst = true
        case "--seed": fleet.seed = try arguments.unsigned(for: word)
        case "--rate": fleet.ratePerVehicle = try arguments.number(for: word, minimum: 0.001, maximum: 1000)
        case "--port": configuration.port = try arguments.integer(for: word, minimum: 0, maximum: 65535)
        case "--host": configuration.host = try arguments.value(for: word, ListenAddress.checkedUsable)
        case "--token": configuration.token = try arguments.value(for: word)
        case "--cors-origins":
            let text = try arguments.value(for: word)
            do { configuration.cors = try CORSPolicy.parse(text) } catch { throw UsageError.invalidSpecification(flag: word, error: error) }
        case "--tls-cert": tlsCertificate = try arguments.value(for: word)
        case "--tls-key": tlsKey = try arguments.value(for: word)
        case "--drop-after": configuration.faults.dropAfter = try arguments.integer(for: word, minimum: 1)
        case "--close-code":
            let text = try arguments.value(for: word)
            do { configuration.faults.closeCode = try FaultPlan.parseCloseCode(text) } catch { throw UsageError.invalidSpecification(flag: word, error: error) }
        case "--malformed-every": configuration.faults.malformedEvery = try arguments.integer(for: word, minimum: 1)
        case "--stall": configuration.faults.stallMilliseconds = try arguments.milliseconds(for: word, minimum: 1)
        case "--stall-after": configuration.faults.stallAfter = try arguments.integer(for: word, minimum: 0)
        case "--reject-first": configuration.faults.rejectFirst = try arguments.integer(for: word, minimum: 0)
        case "--expire-token-after":
            configuration.faults.expireTokenAfterSeconds = try arguments.seconds(for: word, minimum: 0, inclusive: false)
        default:
            throw arguments.unknownOption(word, command: nil)
        }
    }
    switch (tlsCertificate, tlsKey) {
    case (let certificate?, let key?): configuration.tls = TLSFiles(certificatePath: certificate, privateKeyPath: key)
    case (nil, nil): break
    default: throw UsageError.together(["--tls-cert", "--tls-key"])
    }
    if let fleetCount {
        var configured = fleet
        configured.vehicles = fleetCount
        configuration.services.append(ServiceSpecification(name: SnowplowFleet.serviceName, source: .fleet(configured)))
    }
    let files = PerFileOptions(columns: columns, inputReferences: inputReferences, fileFormats: fileFormats, trackField: configuration.trackIDField)
    for path in recordings {
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let name = String(base.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        let service = name.isEmpty ? "Recording" : name
        configuration.services.append(ServiceSpecification(name: service, source: ServiceSpecification.source(forFile: path, csvMapping: try files.trackMapping(service))))
    }
    for text in namedServices {
        let service: ServiceSpecification
        do { service = try ServiceSpecification.parse(text, fleet: fleet) } catch { throw UsageError.invalidSpecification(flag: "--service", error: error) }
        configuration.services.append(service.mappingCSV(try files.trackMapping(service.name)))
    }
    for text in layerTexts {
        var layer: LayerSpecification
        do { layer = try LayerSpecification.parse(text) } catch { throw UsageError.invalidSpecification(flag: "--layer", error: error) }
        layer.options = files.loadOptions(layer.name)
        configuration.layers.append(layer)
    }
    for text in hotSpotTexts {
        var service: HotSpotServiceSpecification
        do { service = try HotSpotServiceSpecification.parse(text) } catch { throw UsageError.invalidSpecification(flag: "--hotspots", error: error) }
        service.options = files.loadOptions(service.name)
        configuration.hotSpotServices.append(service)
    }
    let served = Set(configuration.services.map(\.name) + configuration.layers.map(\.name) + configuration.hotSpotServices.map(\.name))
    let named = [("--columns", Set(columns.keys.compactMap { $0 })), ("--in-sr", Set(inputReferences.keys.compactMap { $0 })),
                 ("--file-format", Set(fileFormats.keys.compactMap { $0 }))]
    for (flag, names) in named {
        if let unknown = names.subtracting(served).sorted().first {
            throw UsageError.unknownName(unknown, flag: flag, definedBy: "service, layer or hot-spot task (--service, --recording, --layer, --hotspots)")
        }
    }
    guard !configuration.services.isEmpty || !configuration.layers.isEmpty || !configuration.hotSpotServices.isEmpty else {
        throw UsageError.missingArgument("something to serve: --fleet N, --recording FILE, --service NAME=…, --layer NAME=FILE or --hotspots NAME=FILE",
                                         command: nil)
    }
    return configuration
}

let configuration: SimulatorConfiguration
do {
    guard let parsed = try parse(Array(CommandLine.arguments.dropFirst())) else {
        print(help)
        exit(0)
    }
    configuration = parsed
} catch is VersionRequested {
    print(ProgramVersion.line(program: "stream-simulator"))
    exit(0)
} catch {
    log("\(error)")
    exit(2)
}

MallocTuning.keepBatchBuffersInHeap()
let server: SimulatorServer
do {
    // Until the server has started (loading its files), a signal ends the program at once.
    server = try await SimulatorServer.start(configuration)
} catch {
    log("\(error)")
    exit(1)
}
// SIGINT or SIGTERM from here on stops the server gracefully, before its port is announced.
let (stops, stop) = AsyncStream.makeStream(of: Int32.self)
StopSignals.watch { _ in stop.yield(0) }
log("listening on \(server.listenAddress) port \(server.port)")
for name in server.serviceNames {
    log("service \(name): \(server.serviceURL(name))")
}
for name in server.layerNames {
    log("layer \(name): \(server.layerURL(name)) (also \(server.layerURL(name, kind: .featureServer)))")
}
for name in server.hotSpotServiceNames {
    log("hotspots \(name): \(server.hotSpotTaskURL(name))")
}

func firstStop() async -> Int32 {
    for await code in stops { return code }
    return 0
}
let code = await firstStop()
log("shutting down")
await server.shutdown()
exit(code)
