import EntityStreamCommandLine
import Foundation

/// `entitystream-bench`: the release-build benchmarks `make bench` runs
/// (see ``usage``; `entitystream-bench --help` prints it).
///
/// `transport-server --count N` is the server process the transport benchmark starts;
/// `hotspots-memory --count N --neighbours K --band given|chosen` is the child that measures peak RSS;
/// `memory-tracks --tracks N --per-track K` the one that measures the store with many tracks.
let usage = """
Usage: entitystream-bench [BENCHMARK] [options]

Runs the release-build benchmarks (make bench runs them all) and prints one line per figure.

Benchmarks (default all):
  transport      300-byte messages from a server process over loopback
  json           decoding the AIS recording into observations
  replay         entitystream replay of 2 M observations through a pipe
  replay-large   a 1 GB replay, peak RSS
  memory         bytes per retained observation
  simulator      stream-simulator --burst -> entitystream connect, against the Node and Python peers
  stages         single-threaded decode, store and format, for profiling
  compare        --baseline PATH: another build's entitystream replayed against this one, paired rounds
  query          time-extent queries of 1 M retained observations (SQLite peer; --no-ingestion skips
                 the ingestion figure)
  statistics     grouped statistics of 1 M rows (SQLite, DuckDB peers)
  hotspots       Gi* on 100,000 and 1,000,000 points (PySAL esda peer)
  identify       identify 1 M random points in a COG (gdallocationinfo, rasterio peers)
  enrich         replay --enrich against the same replay without it
  features       feature-layer where/time scans and CSV loading
  reproject      1 M points EPSG:2913 -> 4326 and 4326 -> 3857 (pyproj, gdaltransform peers)
  files          statistics and a query over a generated 10 M-row CSV, streamed, against DuckDB
                 (threads = 2) and SQLite; peak RSS over 1 M, 10 M and 30 M rows
                 (--rows N, --sizes N,N,…, --dir DIR, default bench-output;
                 --format jsonl: the same rows as Esri JSON lines, DuckDB's read_json_auto)
  jetstream      publishing and consuming the AIS recording through nats-server (nats-py peer)
  relay          the fleet through entitystream serve to 1, 10 and 100 WebSocket clients: bursts and
                 10,000 observations/s (latency); --runs N (default 3), --window S (default 5),
                 --clients N,N,… (default 1,10,100), --modes burst,paced,direct (default all),
                 --baseline PATH (another build's entitystream, paired with this one run by run)
  soak           make soak: the demo and a looped replay, RSS sampled; exit status 1 when memory
                 grew once the store was full (--seconds N, default 60)

Options:
  --count N       points, observations or rows (each benchmark has its default)
  --runs N        alternating runs per contender (default 5)
  --mb N          size of the large replay (default 1024)
  --no-peers      skip the peer programs (Node, Python, SQLite, DuckDB, GDAL)
  --ais PATH      the AIS recording (default ../shared/data/tracks/…)
  --raster PATH   identify's raster; --world PATH enrich's raster
  --rasterio-count N, --neighbours K, --rounds N, --million N, --baseline PATH, --seconds N
  -h, --help      show this help
  --version       print the version

A value may be attached (--runs=3). An unknown benchmark or option, or a value that is not what the
option takes (a whole number from its bound, one of its choices), is an error naming it (exit status 2);
options a benchmark does not use are ignored. Peers run only when installed; a missing peer or shared
data file is reported and skipped.
"""
let options: BenchmarkOptions
do {
    guard let parsed = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(usage)
        exit(0)
    }
    options = parsed
} catch is VersionRequested {
    print(ProgramVersion.line(program: "entitystream-bench"))
    exit(0)
} catch {
    FileHandle.standardError.write(Data("entitystream-bench: \(error)\n".utf8))
    exit(2)
}
let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
let selected = options.benchmark
let ais = options.ais
let haveAIS = FileManager.default.fileExists(atPath: ais)
let runs = options.runs ?? 5

let raster = options.raster
let haveRaster = FileManager.default.fileExists(atPath: raster)
let world = options.world
let haveWorld = haveAIS && FileManager.default.fileExists(atPath: world)
func skipEnrich() { report("enrich: skipped (needs the AIS recording at \(ais) and the world raster at \(world); the shared data is absent)") }

func report(_ line: String) { print(line) }
func skip(_ what: String) { report("\(what): skipped (no AIS recording at \(ais); the shared data is absent)") }

func runTransport() async throws {
    let count = options.count ?? 1_000_000
    var best: BenchmarkResult?
    for _ in 0..<3 {
        let result = try await TransportBenchmark.run(count: count, executable: executable)
        if best == nil || result.rate > best!.rate { best = result }
    }
    report(best!.line + " [best of 3]")
}

/// The streamed-file benchmark (``FileBenchmark``); it prints its own lines as it goes.
func runFiles() throws -> [String] {
    try FileBenchmark.run(rows: options.rows ?? 10_000_000, runs: runs, sizes: options.sizes ?? [1_000_000, 10_000_000, 30_000_000],
                          directory: options.directory ?? "bench-output", executable: executable, peers: options.peers,
                          fileFormat: options.fileFormat ?? .csv)
}

do {
    switch selected {
    case "transport-server":
        try await TransportBenchmark.runServer(count: options.count ?? 1_000_000)
    case "transport":
        try await runTransport()
    case "json":
        if haveAIS { for result in try CoreBenchmarks.json(ais: ais) { report(result.line) } } else { skip("json") }
    case "replay":
        if haveAIS { report(try ProcessBenchmarks.replay(ais: ais, count: options.count ?? 2_000_000, runs: runs).line) } else { skip("replay") }
    case "replay-large":
        if haveAIS { report(try ProcessBenchmarks.replayLarge(ais: ais, megabytes: options.megabytes ?? 1024).line) } else { skip("replay-large") }
    case "memory":
        if haveAIS {
            let (line, perObservation) = try CoreBenchmarks.memoryPerObservation(ais: ais, count: options.count ?? 1_000_000)
            report(line)
            for line in try CoreBenchmarks.memoryByTracks(executable: executable, perObservation: perObservation) { report(line) }
        } else {
            skip("memory")
        }
    case "memory-tracks":
        report(try CoreBenchmarks.memoryTracksChild(ais: ais, tracks: options.tracks ?? 20_000, perTrack: options.perTrack ?? 5))
    case "soak":
        let seconds = options.seconds ?? 60
        var failed = false
        for result in try SoakBenchmark.run(seconds: seconds) {
            report(result.line)
            failed = failed || !result.passed
        }
        if failed { exit(1) }
    case "simulator":
        if haveAIS { for result in try ProcessBenchmarks.simulator(ais: ais, count: options.count ?? 1_000_000, runs: runs) { report(result.line) } } else { skip("simulator") }
    case "query":
        for line in try await QueryBenchmark.run(count: options.count ?? 1_000_000, peers: options.peers,
                                                 ingestion: options.ingestion) { report(line) }
    case "statistics":
        for line in try await StatisticsBenchmark.run(count: options.count ?? 1_000_000, runs: options.runs ?? 7,
                                                 peers: options.peers) { report(line) }
    case "hotspots":
        for line in try HotSpotBenchmark.run(count: options.count ?? 100_000, neighbours: options.neighbours ?? 30,
                                             rounds: options.rounds ?? 3, millionCount: options.millionCount ?? 1_000_000,
                                             executable: executable) { report(line) }
    case "hotspots-memory":
        report(try HotSpotBenchmark.memory(count: options.count ?? 1_000_000, neighbours: options.neighbours ?? 30,
                                           chooseBand: options.band == "chosen"))
    case "features":
        for line in try FeatureBenchmarks.run(count: options.count ?? 1_000_000) { report(line) }
    case "reproject":
        for line in try ReprojectBenchmark.run(count: options.count ?? 1_000_000, runs: runs,
                                               peers: options.peers) { report(line) }
    case "files":
        _ = try runFiles()
    case "compare":
        if haveAIS, let baseline = options.baseline {
            for line in try CompareBenchmark.run(ais: ais, baseline: baseline, count: options.count ?? 1_000_000,
                                                 rounds: options.runs ?? 9) { report(line) }
        } else {
            skip("compare")
        }
    case "relay":
        for line in try await RelayBenchmark.run(runs: options.runs ?? 3, clientCounts: options.clients ?? [1, 10, 100], window: options.window ?? 5,
                                                 modes: options.modes ?? Set(RelayBenchmark.Mode.allCases),
                                                 baseline: options.baseline.map { URL(fileURLWithPath: $0) }) { report(line) }
    case "stages":
        if haveAIS { for result in try StageBenchmark.run(path: ais, count: options.count ?? 1_000_000) { report(result.line) } } else { skip("stages") }
    case "identify":
        if haveRaster {
            for line in try IdentifyBenchmark.run(path: raster, count: options.count ?? 1_000_000, runs: options.runs ?? 3,
                                                  rasterioCount: options.rasterioCount ?? 100_000) { report(line) }
        } else {
            report("identify: skipped (no raster at \(raster); the shared data is absent)")
        }
    case "jetstream":
        if haveAIS {
            for line in try JetStreamBenchmark.run(ais: ais, count: options.count ?? 1_000_000, rounds: options.runs ?? 3, peers: options.peers) {
                report(line)
            }
        } else {
            skip("jetstream")
        }
    case "enrich":
        if haveWorld {
            for line in try await EnrichBenchmark.run(ais: ais, raster: world, count: options.count ?? 1_000_000,
                                                      runs: options.runs ?? 5) { report(line) }
        } else {
            skipEnrich()
        }
    case "all":
        report("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB")
        try await runTransport()
        if haveAIS {
            for result in try CoreBenchmarks.json(ais: ais) { report(result.line) }
            report(try ProcessBenchmarks.replay(ais: ais, count: 2_000_000, runs: runs).line)
            report(try ProcessBenchmarks.replayLarge(ais: ais, megabytes: options.megabytes ?? 1024).line)
            let (memoryLine, perObservation) = try CoreBenchmarks.memoryPerObservation(ais: ais, count: 1_000_000)
            report(memoryLine)
            for line in try CoreBenchmarks.memoryByTracks(executable: executable, perObservation: perObservation) { report(line) }
            for result in try ProcessBenchmarks.simulator(ais: ais, count: 1_000_000, runs: runs) { report(result.line) }
        } else {
            skip("json, replay, memory and simulator benchmarks")
        }
        for line in try await QueryBenchmark.run(count: 1_000_000) { report(line) }
        for line in try await StatisticsBenchmark.run(count: 1_000_000, runs: 7, peers: true) { report(line) }
        for line in try HotSpotBenchmark.run(count: 100_000, neighbours: 30, rounds: 3, millionCount: 1_000_000,
                                             executable: executable) { report(line) }
        if haveRaster {
            for line in try IdentifyBenchmark.run(path: raster, count: 1_000_000, runs: 3, rasterioCount: 100_000) { report(line) }
        } else {
            report("identify: skipped (no raster at \(raster); the shared data is absent)")
        }
        if haveWorld {
            for line in try await EnrichBenchmark.run(ais: ais, raster: world, count: 1_000_000, runs: 5) { report(line) }
        } else {
            skipEnrich()
        }
        for line in try FeatureBenchmarks.run(count: 1_000_000) { report(line) }
        for line in try ReprojectBenchmark.run(count: 1_000_000, runs: runs, peers: true) { report(line) }
        if haveAIS {
            for line in try JetStreamBenchmark.run(ais: ais, count: 1_000_000, rounds: 3) { report(line) }
        } else {
            skip("jetstream")
        }
        _ = try runFiles()
        for line in try await RelayBenchmark.run(runs: 3) { report(line) }
    default:
        FileHandle.standardError.write(Data("unknown benchmark '\(selected)' (see entitystream-bench --help)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
