import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import Foundation
import StreamSimulator
import Synchronization
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamAnalyses

/// `entitystream replay FILE …`: run a recording through the same store and
/// output, with no network.
struct ReplayCommand {
    var path = ""
    var stream = StreamOptions()
    var pacing = ReplayPacing.asFastAsPossible
    var loop = false
    var hold = false
    /// `--columns`: read FILE as a CSV of tracks with these columns.
    var columns: FeatureColumnMapping?

    static let help = """
    Usage: entitystream replay FILE [options]

    Plays a recording through the entity store and prints the same JSON lines
    as `connect`, with no network; as fast as possible unless timed. FILE is a
    recording made by `entitystream record`, Esri feature JSON lines (such as
    Esri's AIS sample file; name the track field with --track-field), a JSON
    array of features, or a CSV of timestamped positions (with --columns); - reads
    it from stdin (then stdin carries no control commands). Filters are
    applied locally; an unusable line becomes an "error" event and the replay
    goes on.

    Example:
      entitystream replay ../shared/data/tracks/AIS_MarineCadastre_SelectedVessels_CustomDataSource.json \\
          --track-field MMSI --limit 20

    Options:
      Pacing:
        --interval MS               pause MS milliseconds between messages (Esri's samples use 10)
        --speed X                   a recording's (or a CSV's) own timing, X times faster
                                    (0.5 = half speed; 0.000001 to 1000000)
        --loop                      start again at the end (stop with --limit, --duration or Ctrl-C)
        --hold                      keep the store after the end and answer control commands
                                    (queries, analyses) until stdin ends or Ctrl-C; they are read
                                    once the whole file has played, so queries see all of it
      CSV tracks:
        --columns track=COL,time=COL,x=COL,y=COL
                                    read FILE as CSV: the track-id, time (ISO-8601 or epoch
                                    seconds/milliseconds), longitude and latitude (WGS84) columns
                                    (track= may be left to --track-field)
    \(StreamOptions.help)
      -h, --help                  show this help
    """

    /// Deprecated spellings still read.
    static let aliases = ["--csv": "--columns"]

    /// `extra` sees each flag first (`serve` takes its own flags so).
    init(arguments: inout ArgumentList, extra: ExtraFlags? = nil) throws {
        var sawInterval = false
        var sawSpeed = false
        arguments.aliases = Self.aliases
        while let word = try arguments.nextFlag() {
            if let extra, try extra(word, &arguments) { continue }
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--interval":
                pacing = .interval(milliseconds: try arguments.milliseconds(for: word, minimum: 0))
                sawInterval = true
            case "--speed":
                pacing = .recordedTiming(speed: try arguments.speed(for: word))
                sawSpeed = true
            case "--loop":
                loop = true
            case "--hold":
                hold = true
            case "--columns":
                columns = try arguments.columnMapping(for: word)
            default:
                if try stream.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") && word != "-" { throw arguments.unknownOption(word, command: "replay") }
                guard path.isEmpty else { throw UsageError.unexpectedArgument(word, command: "replay", expected: "one file") }
                path = word
            }
        }
        if sawInterval && sawSpeed { throw UsageError.conflicting(["--interval", "--speed"], command: "replay") }
        guard !path.isEmpty else { throw UsageError.missingArgument("the FILE to replay (- for stdin)", command: "replay") }
        if hold && loop {
            throw UsageError.conflicting(["--hold", "--loop"], command: "replay",
                                         reason: "--hold answers control commands after the end of the file, which --loop never reaches")
        }
        if hold && path == "-" {
            throw UsageError.conflicting(["--hold", "'replay -'"], command: "replay",
                                         reason: "--hold answers control commands from stdin, where 'replay -' reads the file")
        }
        if let columns {
            do { _ = try CSVColumnMapping(columns: columns, trackField: stream.trackIDField) } catch {
                throw UsageError.invalidValue(flag: "--columns", error: error)
            }
            if columns.wkid != nil {
                throw UsageError.notApplicable(["--columns wkid="], command: "replay", scope: "the files of query, statistics and hotspots",
                                               advice: "a CSV of tracks holds WGS84 longitude/latitude")
            }
        }
        try stream.validate()
    }

    func run() async throws -> Int32 {
        guard let (session, makeSource) = try await prepareSession() else { return 1 }
        return try await session.run(makeSource: makeSource)
    }

    /// The session and how it makes its source (`serve` adds its server to
    /// them); nil when the file cannot be read (said on stderr).
    func prepareSession() async throws -> (StreamSession, @Sendable (StreamPipeline) -> any SessionSource)? {
        let source: ReplaySource
        do {
            source = try prepare()
        } catch where error.isUsageError {
            throw UsageError.invalidArgument(command: "replay", error: error)
        } catch {
            Stderr.line("entitystream: replay: \(error)")
            return nil
        }
        var session = StreamSession(options: stream)
        session.holdAfterSourceEnds = hold
        (session.rasters, session.enricher) = try await stream.rasters.open()
        session.readsControlCommands = path != "-"
        let service = path == "-" ? "stdin" : URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        if let output = stream.publish.output(defaultService: service, kinds: stream.events) { session.sideOutputs = [output] }
        return (session, { pipeline in ReplayRun(source: source, pipeline: pipeline) })
    }
}

extension ReplayCommand {
    /// Reads FILE (stdin for `-`) as a recording, feature file or CSV track.
    /// A file given by path is streamed in bounded chunks; standard input and
    /// CSV tracks are read whole into memory (see ``ReplaySource``).
    func prepare() throws(ReplayError) -> ReplaySource {
        let name = path == "-" ? "stdin" : path
        if columns == nil && path != "-" {
            return try ReplaySource.prepare(path: path, trackIDField: stream.trackIDField, filter: stream.filter, pacing: pacing, loop: loop)
        }
        let bytes = path == "-" ? Self.readStandardInput() : try ReplaySource.readFile(path)
        guard let columns else {
            return try ReplaySource.prepare(bytes: bytes, path: name, trackIDField: stream.trackIDField, filter: stream.filter,
                                            pacing: pacing, loop: loop)
        }
        let recorded: RecordedStream
        do {
            let mapping = try CSVColumnMapping(columns: columns, trackField: stream.trackIDField)
            let track = try CSVTrackRecording(csv: String(decoding: bytes, as: UTF8.self), mapping: mapping)
            recorded = try track.recordedStream(trackIDField: stream.trackIDField)
        } catch {
            throw .csvTrack(path: name, error)
        }
        return try ReplaySource.prepare(stream: recorded, path: name, filter: stream.filter, pacing: pacing, loop: loop)
    }

    /// All of standard input (before anything else reads it).
    static func readStandardInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }
}

/// A replay as a session's source.
struct ReplayRun: SessionSource, ControlTarget {
    let source: ReplaySource
    let pipeline: StreamPipeline
    let filters = FilterBox()
    let ended = EndedFlag()

    /// Set once the file has been played (`replay --hold` goes on answering commands).
    final class EndedFlag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    var controlTarget: any ControlTarget { self }

    func run() async -> String? {
        await source.run(into: pipeline, filterUpdates: filters)
        ended.set()
        return nil
    }

    func stop() async {}

    func setFilter(_ filter: StreamFilter) async -> FilterOutcome {
        if let problem = source.problem(with: filter) {
            let outcome = FilterOutcome(result: .rejected, requested: filter, error: problem.description)
            await pipeline.publish(StreamEvent(time: pipeline.clock.now(), payload: .filter(outcome)))
            return outcome
        }
        filters.set(filter)
        let outcome = FilterOutcome(result: .applied, requested: filter)
        await pipeline.publish(StreamEvent(time: pipeline.clock.now(), payload: .filter(outcome)))
        return outcome
    }

    func sourceStatus() async -> any SourceStatus {
        ReplaySourceStatus(status: ended.isSet ? .ended : .replaying, file: source.path, layout: source.layout)
    }
}

/// What a replay says of itself: replaying or ended, the file and its layout.
struct ReplaySourceStatus: SourceStatus {
    var status: StreamStatus
    var file: String
    var layout: RecordingFile.Layout

    var json: JSONObject {
        JSONObject([("status", .string(status.description)), ("file", .string(file)), ("layout", .string(layout.rawValue))])
    }
}
