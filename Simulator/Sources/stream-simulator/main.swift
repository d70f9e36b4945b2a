import EntityStreamCore
import Foundation
import Locking
import StreamSimulator
import Transport

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
                                a JSON array of features, or a CSV (with --csv)
  --service NAME=FILE|fleet:N   add a named service (repeatable), e.g. Vessels=ais.json
  --csv id=COL,time=COL,x=COL,y=COL
                                column mapping for CSV recordings
  --track-field F               track-id field for files that name none (e.g. MMSI)
Feature layers:
  --layer NAME=FILE             serve FILE as layer NAME (repeatable): a CSV (points from x/lon/longitude
                                and y/lat/latitude columns, or a table without them), Esri feature JSON
                                lines, an Esri JSON array or FeatureSet, GeoJSON, or a recording
  --layer-columns NAME=x=COL,y=COL,time=COL[,end=COL][,track=COL][,oid=COL][,wkid=N]
                                which columns of layer NAME's file are x, y, time (time=none: no time),
                                interval end, track id, object id, and the coordinates' wkid
  --layer-format NAME=FORMAT    force the format of layer NAME's file: csv, esri-lines, esri-array,
                                esri-featureset, geojson, geojsonseq, recording (default: recognised)
  --max-record-count N          most features one query answers (default 2000)
Hot-spot geoprocessing services (the "Analyze hotspots" sample's 911 Calls Hotspot task):
  --hotspots NAME=FILE          serve FILE's incidents as …/NAME/GPServer/911 Calls Hotspot (repeatable);
                                its Query parameter selects incidents ("DATE" names their time field)
  --hotspots-columns NAME=x=COL,y=COL,time=COL[,wkid=N]
                                which columns of NAME's file are x, y and the date, and the wkid, e.g.
                                x=x_coordina,y=y_coordina,time=occ_date,wkid=2913 (--layer-columns works too)
  --job-delay MS                each job stays MS in each status (submitted, waiting, executing, cancelling)
  --job-execution MS            each job executes at least MS (default: --job-delay); a cancel cuts it short
  --no-layer-pagination         layers answer as servers before 10.3 did: no supportsPagination, and
                                resultOffset/resultRecordCount ignored (clients page by object ids)
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

Examples:
  stream-simulator --fleet 25 --port 0
  stream-simulator --layer Hurricanes=hurdat2_2000_season_flat.csv --port 0
  stream-simulator --hotspots Burglary=portland_nij_cfs_burglary_2012-03_2016-08.csv \\
      --hotspots-columns Burglary=x=x_coordina,y=y_coordina,time=occ_date,wkid=2913 --job-delay 500 --port 0
"""

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One line on stderr. A closed or failing stderr is ignored: faults are announced there, and a
/// reader that stopped reading (`2>&1 | head -1`) must not stop the server.
func log(_ text: String) {
    try? FileDescriptorOutput.standardError.write("stream-simulator: \(text)\n")
}

func parse(_ words: [String]) throws -> SimulatorConfiguration? {
    var configuration = SimulatorConfiguration()
    configuration.port = 6180
    configuration.log = { log($0) }
    var fleet = FleetConfiguration()
    var fleetCount: Int?
    var recordings: [String] = []
    var namedServices: [String] = []
    var csvMapping: CSVColumnMapping?
    var layerTexts: [String] = []
    var layerColumns: [(name: String, mapping: FeatureColumnMapping)] = []
    var layerFormats: [(name: String, format: FeatureFileFormat)] = []
    var hotSpotTexts: [String] = []
    var hotSpotColumns: [(name: String, mapping: FeatureColumnMapping)] = []
    var tlsCertificate: String?
    var tlsKey: String?
    var index = 0
    func value(_ flag: String) throws -> String {
        index += 1
        guard index < words.count else { throw UsageError("\(flag) needs a value") }
        return words[index]
    }
    func integer(_ flag: String, minimum: Int, maximum: Int = .max) throws -> Int {
        let text = try value(flag)
        guard let number = Int(text), number >= minimum else { throw UsageError("\(flag) expects a whole number ≥ \(minimum), not '\(text)'") }
        guard number <= maximum else { throw UsageError("\(flag) expects a whole number ≤ \(maximum), not '\(text)'") }
        return number
    }
    /// A number within `range` (time values use the bounds `entitystream` uses: ``TimeBounds``).
    func number(_ flag: String, in range: ClosedRange<Double>, excludingLowerBound: Bool = false) throws -> Double {
        let text = try value(flag)
        guard let number = Double(text), number.isFinite, range.contains(number), !(excludingLowerBound && number == range.lowerBound) else {
            throw UsageError("\(flag) expects a number \(excludingLowerBound ? "above" : "from") \(range.lowerBound) \(excludingLowerBound ? "up " : "")to \(range.upperBound), not '\(text)'")
        }
        return number
    }
    let maximumMilliseconds = Int(TimeBounds.maximumMilliseconds)
    while index < words.count {
        let word = words[index]
        switch word {
        case "-h", "--help": return nil
        case "--fleet": fleetCount = try integer(word, minimum: 1)
        case "--recording": recordings.append(try value(word))
        case "--service": namedServices.append(try value(word))
        case "--csv":
            do { csvMapping = try CSVColumnMapping(parsing: try value(word)) } catch let error as CSVError { throw UsageError("--csv: \(error)") }
        case "--track-field": configuration.trackIDField = try value(word)
        case "--layer": layerTexts.append(try value(word))
        case "--layer-columns":
            do {
                let (name, text) = try LayerSpecification.split(try value(word), flag: word, what: "x=COL,y=COL,time=COL,…")
                layerColumns.append((name, try FeatureColumnMapping(parsing: text)))
            } catch let error as SimulatorError { throw UsageError(error.description) } catch let error as CSVError { throw UsageError("--layer-columns: \(error)") }
        case "--layer-format":
            do {
                let (name, text) = try LayerSpecification.split(try value(word), flag: word, what: "FORMAT")
                guard let format = FeatureFileFormat(name: text) else {
                    throw UsageError("--layer-format \(name)=\(text): unknown format (one of \(FeatureFileFormat.names))")
                }
                layerFormats.append((name, format))
            } catch let error as SimulatorError { throw UsageError(error.description) }
        case "--hotspots": hotSpotTexts.append(try value(word))
        case "--hotspots-columns":
            do {
                let (name, text) = try LayerSpecification.split(try value(word), flag: word, what: "x=COL,y=COL,time=COL,…")
                hotSpotColumns.append((name, try FeatureColumnMapping(parsing: text)))
            } catch let error as SimulatorError { throw UsageError(error.description) } catch let error as CSVError { throw UsageError("--hotspots-columns: \(error)") }
        case "--job-delay": configuration.jobDelayMilliseconds = Int64(try integer(word, minimum: 0, maximum: 3_600_000))
        case "--job-execution": configuration.jobExecutionMilliseconds = Int64(try integer(word, minimum: 0, maximum: 3_600_000))
        case "--max-record-count": configuration.maxRecordCount = try integer(word, minimum: 1)
        case "--no-layer-pagination": configuration.layerPagination = false
        case "--no-archive": configuration.fleetArchive = false
        case "--no-related": configuration.fleetRelated = false
        case "--speed": configuration.pacing.speed = try number(word, in: TimeBounds.speeds)
        case "--interval": configuration.pacing.intervalMilliseconds = Int64(try integer(word, minimum: 0, maximum: maximumMilliseconds))
        case "--loop": configuration.pacing.loop = true
        case "--burst": configuration.pacing.burst = true
        case "--seed":
            let text = try value(word)
            guard let seed = UInt64(text) else { throw UsageError("--seed expects a non-negative whole number, not '\(text)'") }
            fleet.seed = seed
        case "--rate": fleet.ratePerVehicle = try number(word, in: 0.001...1000)
        case "--port": configuration.port = try integer(word, minimum: 0)
            if configuration.port > 65535 { throw UsageError("--port expects 0–65535") }
        case "--host":
            let host = try value(word)
            do {
                try ListenAddress(parsing: host).checkUsable()
            } catch {
                if case .serverStartFailed(let detail) = error { throw UsageError("--host: \(detail)") }
                throw UsageError("--host: \(error)")
            }
            configuration.host = host
        case "--token": configuration.token = try value(word)
        case "--cors-origins":
            do { configuration.cors = try CORSPolicy.parse(try value(word)) } catch let error as SimulatorError { throw UsageError(error.description) }
        case "--tls-cert": tlsCertificate = try value(word)
        case "--tls-key": tlsKey = try value(word)
        case "--drop-after": configuration.faults.dropAfter = try integer(word, minimum: 1)
        case "--close-code":
            do { configuration.faults.closeCode = try FaultPlan.parseCloseCode(try value(word)) } catch let error as SimulatorError { throw UsageError(error.description) }
        case "--malformed-every": configuration.faults.malformedEvery = try integer(word, minimum: 1)
        case "--stall": configuration.faults.stallMilliseconds = Int64(try integer(word, minimum: 1, maximum: maximumMilliseconds))
        case "--stall-after": configuration.faults.stallAfter = try integer(word, minimum: 0)
        case "--reject-first": configuration.faults.rejectFirst = try integer(word, minimum: 0)
        case "--expire-token-after":
            configuration.faults.expireTokenAfterSeconds = try number(word, in: 0...TimeBounds.maximumSeconds, excludingLowerBound: true)
        default:
            throw UsageError("unknown option '\(word)' (see stream-simulator --help)")
        }
        index += 1
    }
    switch (tlsCertificate, tlsKey) {
    case (let certificate?, let key?): configuration.tls = TLSFiles(certificatePath: certificate, privateKeyPath: key)
    case (nil, nil): break
    default: throw UsageError("--tls-cert and --tls-key go together")
    }
    if let fleetCount {
        var configured = fleet
        configured.vehicles = fleetCount
        configuration.services.append(ServiceSpecification(name: SnowplowFleet.serviceName, source: .fleet(configured)))
    }
    for path in recordings {
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let name = String(base.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        configuration.services.append(ServiceSpecification(name: name.isEmpty ? "Recording" : name,
                                                           source: ServiceSpecification.source(forFile: path, csvMapping: csvMapping)))
    }
    for text in namedServices {
        do { configuration.services.append(try ServiceSpecification.parse(text, csvMapping: csvMapping, fleet: fleet)) } catch { throw UsageError(error.description) }
    }
    for text in layerTexts {
        do { configuration.layers.append(try LayerSpecification.parse(text)) } catch { throw UsageError(error.description) }
    }
    for text in hotSpotTexts {
        do { configuration.hotSpotServices.append(try HotSpotServiceSpecification.parse(text)) } catch { throw UsageError(error.description) }
    }
    for (name, mapping) in layerColumns {
        if let index = configuration.layers.firstIndex(where: { $0.name == name }) {
            configuration.layers[index].options.mapping = mapping
        } else if let index = configuration.hotSpotServices.firstIndex(where: { $0.name == name }) {
            configuration.hotSpotServices[index].options.mapping = mapping
        } else {
            throw UsageError("--layer-columns names layer '\(name)', which no --layer NAME=FILE (or --hotspots NAME=FILE) gives")
        }
    }
    for (name, mapping) in hotSpotColumns {
        guard let index = configuration.hotSpotServices.firstIndex(where: { $0.name == name }) else {
            throw UsageError("--hotspots-columns names service '\(name)', which no --hotspots NAME=FILE gives")
        }
        configuration.hotSpotServices[index].options.mapping = mapping
    }
    for (name, format) in layerFormats {
        guard let index = configuration.layers.firstIndex(where: { $0.name == name }) else {
            throw UsageError("--layer-format names layer '\(name)', which no --layer NAME=FILE gives")
        }
        configuration.layers[index].options.format = format
    }
    guard !configuration.services.isEmpty || !configuration.layers.isEmpty || !configuration.hotSpotServices.isEmpty else {
        throw UsageError("nothing to serve: give --fleet N, --recording FILE, --service NAME=…, --layer NAME=FILE or --hotspots NAME=FILE")
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
