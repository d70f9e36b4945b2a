import EntityStreamCommandLine

/// `entitystream-bench`'s command line, read with the programs' shared
/// parser (``ArgumentList``): the benchmark to run and its options. An
/// unknown benchmark or flag, or a value out of range, is a ``UsageError``
/// (exit status 2) before anything runs; a value given is never replaced by
/// a default. Options a benchmark does not use are accepted and ignored, so
/// `make bench` can pass one line to all of them. Each benchmark's defaults
/// are where it runs (`count ?? 1_000_000`); `all` runs every benchmark at
/// the sizes README's figures were measured at and reads `--runs` and `--mb` only.
struct BenchmarkOptions {
    /// The benchmarks `--help` lists, then the child processes the benchmarks start themselves.
    static let benchmarks = ["transport", "json", "replay", "replay-large", "memory", "simulator", "stages", "compare", "query",
                             "statistics", "hotspots", "identify", "enrich", "features", "reproject", "files", "jetstream", "relay",
                             "soak", "all"]
    static let children = ["transport-server", "memory-tracks", "hotspots-memory"]

    var benchmark = "all"
    var count: Int?
    var runs: Int?
    var megabytes: Int?
    var peers = true
    var ingestion = true
    var ais = "../shared/data/tracks/AIS_MarineCadastre_SelectedVessels_CustomDataSource.json"
    var raster = "../shared/data/rasters/riotiler__cog.tif"
    var world = "../shared/data/rasters/rasterio__world.rgb.tif"
    var rasterioCount: Int?
    var neighbours: Int?
    var rounds: Int?
    var millionCount: Int?
    var baseline: String?
    var seconds: Int?
    var rows: Int?
    var sizes: [Int]?
    var directory: String?
    var fileFormat: FileBenchmark.Format?
    var window: Double?
    var clients: [Int]?
    var modes: Set<RelayBenchmark.Mode>?
    var tracks: Int?
    var perTrack: Int?
    var band: String?

    /// Reads `words` (the arguments after the program's name); nil when they ask for the usage
    /// (`-h` or `--help` as a flag, `help` where the benchmark goes; a flag's value is never read
    /// as either). `--version` throws ``VersionRequested``.
    static func parse(_ words: [String]) throws -> BenchmarkOptions? {
        var options = BenchmarkOptions()
        var arguments = ArgumentList(words, program: "entitystream-bench")
        var named = false
        while let word = try arguments.nextFlag() {
            switch word {
            case "-h", "--help": return nil
            case "--count": options.count = try arguments.integer(for: word, minimum: 1)
            case "--runs": options.runs = try arguments.integer(for: word, minimum: 1)
            case "--mb": options.megabytes = try arguments.integer(for: word, minimum: 1, maximum: 1 << 20)
            case "--no-peers": options.peers = false
            case "--no-ingestion": options.ingestion = false
            case "--ais": options.ais = try arguments.nonEmptyValue(for: word)
            case "--raster": options.raster = try arguments.nonEmptyValue(for: word)
            case "--world": options.world = try arguments.nonEmptyValue(for: word)
            case "--rasterio-count": options.rasterioCount = try arguments.integer(for: word, minimum: 1)
            case "--neighbours": options.neighbours = try arguments.integer(for: word, minimum: 1)
            case "--rounds": options.rounds = try arguments.integer(for: word, minimum: 1)
            case "--million": options.millionCount = try arguments.integer(for: word, minimum: 0)
            case "--baseline": options.baseline = try arguments.nonEmptyValue(for: word)
            case "--seconds": options.seconds = try arguments.integer(for: word, minimum: 1, maximum: 86_400)
            case "--rows": options.rows = try arguments.integer(for: word, minimum: 1)
            case "--sizes": options.sizes = try arguments.integers(for: word, minimum: 1)
            case "--dir": options.directory = try arguments.nonEmptyValue(for: word)
            case "--format": options.fileFormat = try arguments.choice(for: word, among: FileBenchmark.Format.allCases)
            case "--window": options.window = try arguments.seconds(for: word, minimum: 0, inclusive: false)
            case "--clients": options.clients = try arguments.integers(for: word, minimum: 1, maximum: 100_000)
            case "--modes":
                var modes = Set<RelayBenchmark.Mode>()
                for name in try arguments.nonEmptyValue(for: word).split(separator: ",", omittingEmptySubsequences: false) {
                    guard let mode = RelayBenchmark.Mode(rawValue: String(name)) else {
                        throw UsageError.notOneOf(flag: word, value: String(name), choices: RelayBenchmark.Mode.allCases.map(\.rawValue))
                    }
                    modes.insert(mode)
                }
                options.modes = modes
            case "--tracks": options.tracks = try arguments.integer(for: word, minimum: 1)
            case "--per-track": options.perTrack = try arguments.integer(for: word, minimum: 1)
            case "--band": options.band = try arguments.choice(for: word, among: ["given", "chosen"])
            default:
                if word.hasPrefix("-") { throw arguments.unknownOption(word, command: nil) }
                if word == "help" && !named { return nil }
                guard !named else { throw UsageError.unexpectedArgument(word, command: options.benchmark, expected: "one benchmark") }
                guard benchmarks.contains(word) || children.contains(word) else {
                    throw UsageError.unknownCommand(word, known: benchmarks, program: "entitystream-bench")
                }
                options.benchmark = word
                named = true
            }
        }
        if options.benchmark == "compare" && options.baseline == nil {
            throw UsageError.requires("compare", needs: "--baseline PATH", reason: "another build's entitystream, to replay against this build's")
        }
        return options
    }
}
