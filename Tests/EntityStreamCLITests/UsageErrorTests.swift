import EntityStreamCommandLine
import EntityStreamCore
import EntityStreamModel
import EntityStreamProjection
import EntityStreamTestSupport
import Foundation
import Testing

/// The usage error `body` throws, or nil (recorded as an issue) when it throws none or another error.
private func usageError(_ body: () throws -> Void) -> UsageError? {
    do {
        try body()
        Issue.record("no usage error")
    } catch let error as UsageError {
        return error
    } catch {
        Issue.record("not a usage error: \(error)")
    }
    return nil
}

/// An argument list positioned at `flag`'s value (`flag` read as the next flag).
private func arguments(_ words: [String], program: String = "entitystream") throws -> ArgumentList {
    var list = ArgumentList(words, program: program)
    _ = try list.nextFlag()
    return list
}

@Suite("Usage errors are classified by case", .bounded)
struct UsageErrorCaseTests {
    /// The shared parser's helpers say which kind of mistake it was and carry the flag and the value.
    @Test func helpersThrowTheirCase() throws {
        var attached = ArgumentList(["--loop=yes"])
        #expect(try attached.next() == "--loop")
        #expect(usageError { _ = try attached.next() } == .unexpectedValue(flag: "--loop", value: "yes"))

        var end = try arguments(["--token"])
        #expect(usageError { _ = try end.value(for: "--token") } == .missingValue(flag: "--token"))

        var limit = try arguments(["--limit", "0"])
        #expect(usageError { _ = try limit.integer(for: "--limit", minimum: 1) } == .badNumber(flag: "--limit", value: "0", expected: .wholeAtLeast(1)))
        var word = try arguments(["--limit", "ten"])
        #expect(usageError { _ = try word.integer(for: "--limit", minimum: 1) } == .badNumber(flag: "--limit", value: "ten", expected: .wholeAtLeast(1)))
        var many = try arguments(["--vehicles", "200000"])
        #expect(usageError { _ = try many.integer(for: "--vehicles", minimum: 1, maximum: 100_000) }
                == .badNumber(flag: "--vehicles", value: "200000", expected: .wholeAtMost(100_000)))

        var zero = try arguments(["--duration", "0"])
        #expect(usageError { _ = try zero.seconds(for: "--duration", minimum: 0, inclusive: false) }
                == .badNumber(flag: "--duration", value: "0", expected: .above(0)))
        var long = try arguments(["--duration", "1e300"])
        #expect(usageError { _ = try long.seconds(for: "--duration", minimum: 0, inclusive: false) }
                == .badNumber(flag: "--duration", value: "1e300", expected: .atMost(TimeBounds.maximumSeconds)))
        var infinite = try arguments(["--rate", "inf"])
        #expect(usageError { _ = try infinite.number(for: "--rate", minimum: 0.001, maximum: 1000) }
                == .badNumber(flag: "--rate", value: "inf", expected: .atLeast(0.001)))
        var slow = try arguments(["--speed", "1e-300"])
        #expect(usageError { _ = try slow.speed(for: "--speed") } == .badNumber(flag: "--speed", value: "1e-300", expected: .atLeast(TimeBounds.speeds.lowerBound)))
        var interval = try arguments(["--interval", "9223372036854775807"])
        #expect(usageError { _ = try interval.milliseconds(for: "--interval", minimum: 0) }
                == .badNumber(flag: "--interval", value: "9223372036854775807", expected: .wholeAtMost(Int(TimeBounds.maximumMilliseconds))))

        var negative = try arguments(["--seed", "-1"])
        #expect(usageError { _ = try negative.unsigned(for: "--seed") } == .badNumber(flag: "--seed", value: "-1", expected: .wholeAtLeast(0)))
        var largest = try arguments(["--seed", "18446744073709551615"])
        #expect(try largest.unsigned(for: "--seed") == .max)

        var format = try arguments(["--format", "kml"])
        #expect(usageError { _ = try format.format(for: "--format") } == .notOneOf(flag: "--format", value: "kml", choices: ["esri", "geojson", "csv"]))
        var narrowed = try arguments(["--format", "csv"])
        #expect(usageError { _ = try narrowed.format(for: "--format", allowed: [.esri, .geojson]) }
                == .notOneOf(flag: "--format", value: "csv", choices: ["esri", "geojson"]))
        var slowClients = try arguments(["--slow-clients", "maybe"])
        #expect(usageError { _ = try slowClients.choice(for: "--slow-clients", among: ["drop", "close"]) }
                == .notOneOf(flag: "--slow-clients", value: "maybe", choices: ["drop", "close"]))
        #expect(usageError { _ = try ArgumentList.fileFormat("kml", flag: "--file-format") }
                == .notOneOf(flag: "--file-format", value: "kml", choices: ["csv", "esri-lines", "esri-array", "esri-featureset", "geojson", "geojsonseq", "recording"]))
        #expect(throws: Never.self) { _ = try ArgumentList.fileFormat(" CSV ", flag: "--file-format") }

        var empty = try arguments(["--track-field", ""])
        #expect(usageError { _ = try empty.nonEmptyValue(for: "--track-field") } == .missingValue(flag: "--track-field"))

        let simulator = ArgumentList([], program: "stream-simulator")
        #expect(simulator.unknownOption("--bogus", command: nil) == .unknownOption("--bogus", command: nil, program: "stream-simulator"))
        #expect(ArgumentList([]).unknownOption("--bins", command: "statistics") == .unknownOption("--bins", command: "statistics", program: "entitystream"))

        #expect(usageError { try ArgumentList.checkFormat(.geojson, outSR: SpatialReference(wkid: 3857)) }
                == .conflicting(["--format geojson", "--out-sr EPSG:3857"], reason: "GeoJSON is WGS84 longitude/latitude (RFC 7946); use --format csv or esri for other coordinates"))
        #expect(throws: Never.self) { try ArgumentList.checkFormat(.geojson, outSR: .wgs84) }
    }

    /// A number too large for any Int, UInt64 or Double is told the whole range, both bounds, where a value
    /// that parses names the bound it crossed; text that is no number at all keeps the lower bound's words.
    @Test func overflowingNumbersNameTheRange() throws {
        for value in ["99999999999999999999", "-99999999999999999999", "+99999999999999999999"] {
            var limit = try arguments(["--limit", value])
            #expect(usageError { _ = try limit.integer(for: "--limit", minimum: 1) }
                    == .badNumber(flag: "--limit", value: value, expected: .wholeBetween(1, UInt64(Int.max))))
        }
        var vehicles = try arguments(["--vehicles", "99999999999999999999"])
        #expect(usageError { _ = try vehicles.integer(for: "--vehicles", minimum: 1, maximum: 100_000) }
                == .badNumber(flag: "--vehicles", value: "99999999999999999999", expected: .wholeBetween(1, 100_000)))
        var interval = try arguments(["--interval", "99999999999999999999"])
        #expect(usageError { _ = try interval.milliseconds(for: "--interval", minimum: 0) }
                == .badNumber(flag: "--interval", value: "99999999999999999999", expected: .wholeBetween(0, UInt64(TimeBounds.maximumMilliseconds))))
        var seed = try arguments(["--seed", "18446744073709551616"])
        #expect(usageError { _ = try seed.unsigned(for: "--seed") } == .badNumber(flag: "--seed", value: "18446744073709551616", expected: .wholeBetween(0, .max)))
        var rate = try arguments(["--rate", "1e400"])
        #expect(usageError { _ = try rate.number(for: "--rate", minimum: 0.001, maximum: 1000) }
                == .badNumber(flag: "--rate", value: "1e400", expected: .between(0.001, inclusive: true, 1000)))
        var duration = try arguments(["--duration", "-1e400"])
        #expect(usageError { _ = try duration.seconds(for: "--duration", minimum: 0, inclusive: false) }
                == .badNumber(flag: "--duration", value: "-1e400", expected: .between(0, inclusive: false, TimeBounds.maximumSeconds)))

        // Not numbers, or numbers that parse: the bound crossed, as before.
        var word = try arguments(["--limit", "1e3"])
        #expect(usageError { _ = try word.integer(for: "--limit", minimum: 1) } == .badNumber(flag: "--limit", value: "1e3", expected: .wholeAtLeast(1)))
        var sign = try arguments(["--limit", "-"])
        #expect(usageError { _ = try sign.integer(for: "--limit", minimum: 1) } == .badNumber(flag: "--limit", value: "-", expected: .wholeAtLeast(1)))
        var negative = try arguments(["--seed", "-1"])
        #expect(usageError { _ = try negative.unsigned(for: "--seed") } == .badNumber(flag: "--seed", value: "-1", expected: .wholeAtLeast(0)))
        var infinite = try arguments(["--rate", "-inf"])
        #expect(usageError { _ = try infinite.number(for: "--rate", minimum: 0.001, maximum: 1000) }
                == .badNumber(flag: "--rate", value: "-inf", expected: .atLeast(0.001)))
    }

    /// A value its own parser refuses is carried with that parser's typed error, after the flag's name.
    @Test func refusedValuesCarryTheInnerError() throws {
        var reference = try arguments(["--out-sr", "EPSG:99999"])
        let refused = usageError { _ = try reference.spatialReference(for: "--out-sr") }
        guard case .invalidValue(let flag, let inner)? = refused else { Issue.record("\(String(describing: refused))"); return }
        #expect(flag == "--out-sr" && inner is ProjectionError)
        #expect(refused?.description == "--out-sr: \(inner)")

        // 2015-02-01 and 2015-01-01 at 00:00 UTC, in epoch milliseconds.
        var time = try arguments(["--time", "2015-02-01,2015-01-01"])
        #expect(usageError { _ = try time.timeExtent(for: "--time") }
                == .invalidValue(flag: "--time", error: TimeExtentError.endBeforeStart(start: 1_422_748_800_000, end: 1_420_070_400_000)))

        // Equal when the inner errors are of one Equatable type and equal; a different inner error is another mistake.
        let first = UsageError.invalidValue(flag: "--time", error: TimeExtentError.notAnExtent("a"))
        #expect(first == .invalidValue(flag: "--time", error: TimeExtentError.notAnExtent("a")))
        #expect(first != .invalidValue(flag: "--time", error: TimeExtentError.notAnExtent("b")))
        #expect(first != .invalidValue(flag: "--time", error: ProjectionError.malformed("a", reason: "b")))
        #expect(first != .invalidValue(flag: "--where", error: TimeExtentError.notAnExtent("a")))
        #expect(first != .invalidSpecification(flag: "--time", error: TimeExtentError.notAnExtent("a")))
    }

    /// What the user reads: one sentence per kind, naming the flag, the value and what was expected.
    @Test(arguments: [
        (UsageError.unexpectedValue(flag: "--loop", value: "yes"), "--loop takes no value (given 'yes')"),
        (.missingValue(flag: "--token"), "--token needs a value"),
        (.badNumber(flag: "--max-observations", value: "-1", expected: .wholeAtLeast(0)), "--max-observations expects a whole number ≥ 0, not '-1'"),
        (.badNumber(flag: "--interval", value: "1e13", expected: .wholeAtMost(1_000_000_000_000)), "--interval expects a whole number ≤ 1000000000000, not '1e13'"),
        (.badNumber(flag: "--speed", value: "0", expected: .atLeast(0.000001)), "--speed expects a number ≥ 1e-06, not '0'"),
        (.badNumber(flag: "--duration", value: "0", expected: .above(0)), "--duration expects a number > 0, not '0'"),
        (.badNumber(flag: "--rate", value: "5000", expected: .atMost(1000)), "--rate expects a number ≤ 1000, not '5000'"),
        (.badNumber(flag: "--limit", value: "99999999999999999999", expected: .wholeBetween(1, 9_223_372_036_854_775_807)),
         "--limit expects a whole number from 1 to 9223372036854775807, not '99999999999999999999'"),
        (.badNumber(flag: "--rate", value: "1e400", expected: .between(0.001, inclusive: true, 1000)), "--rate expects a number from 0.001 to 1000, not '1e400'"),
        (.badNumber(flag: "--duration", value: "1e400", expected: .between(0, inclusive: false, 1e9)), "--duration expects a number > 0 and ≤ 1000000000, not '1e400'"),
        (.notOneOf(flag: "--format", value: "kml", choices: ["esri", "geojson", "csv"]), "--format expects esri, geojson or csv, not 'kml'"),
        (.notOneOf(flag: "--slow-clients", value: "maybe", choices: ["drop", "close"]), "--slow-clients expects drop or close, not 'maybe'"),
        (.malformed("--at", value: "1", expected: "x,y (two numbers, e.g. --at -111.9,40.6)"), "--at expects x,y (two numbers, e.g. --at -111.9,40.6), not '1'"),
        (.malformed("--enrich", value: "", expected: "the NAME of a --raster"), "--enrich expects the NAME of a --raster"),
        (.unknownCommand("bogus", known: ["demo", "replay"], program: "entitystream"), "unknown command 'bogus' (expected demo, replay; see entitystream --help)"),
        (.unknownCommand("bogus", known: ["demo"], program: "entitystream", command: "help"), "help: unknown command 'bogus' (expected demo; see entitystream --help)"),
        (.unknownOption("--bogus", command: "replay", program: "entitystream"), "replay: unknown option '--bogus' (see entitystream replay --help)"),
        (.unknownOption("--bogus", command: nil, program: "stream-simulator"), "unknown option '--bogus' (see stream-simulator --help)"),
        (.unexpectedArgument("b.json", command: "replay", expected: "one file"), "replay: unexpected argument 'b.json'; give one file"),
        (.unexpectedArgument("x", command: "fleet"), "fleet: unexpected argument 'x'"),
        (.missingArgument("-o FILE", command: "record"), "record: missing -o FILE"),
        (.repeated(flag: "--having", advice: "combine the conditions with AND"), "--having is given twice; combine the conditions with AND"),
        (.unknownName("other", flag: "--enrich", definedBy: "raster (--raster other=FILE.tif)"), "--enrich other: no raster (--raster other=FILE.tif) is named 'other'"),
        (.conflicting(["--interval", "--speed"], command: "replay"), "replay: use either --interval or --speed, not both"),
        (.conflicting(["--from-start", "--since", "--from-sequence"], command: "consume"), "consume: use one of --from-start, --since, --from-sequence, not several"),
        (.conflicting(["--collect", "--cell-size"], command: "hotspots", reason: "--cell-size applies to fishnet cells"),
         "hotspots: use either --collect or --cell-size, not both (--cell-size applies to fishnet cells)"),
        (.together(["--tls-cert", "--tls-key"]), "--tls-cert and --tls-key go together"),
        (.requires("--limit", needs: "observation in --events", reason: "it counts printed observation events"),
         "--limit needs observation in --events (it counts printed observation events)"),
        (.notApplicable(["--publish"], command: "consume", scope: "connect, replay and the demo"), "consume: --publish applies to connect, replay and the demo"),
        (.notApplicable(["--columns", "--in-sr", "--file-format"], command: "query", scope: "a local file, not to a service URL"),
         "query: --columns, --in-sr and --file-format apply to a local file, not to a service URL"),
        (.invalidValue(flag: "--time", error: TimeExtentError.notAnExtent("x")), "--time: a time extent is START,END or one instant, not 'x'"),
        (.invalidArgument(command: "fleet", operand: "request", error: TimeExtentError.notAnExtent("x")),
         "fleet: request: a time extent is START,END or one instant, not 'x'"),
        (.invalidSpecification(flag: "--layer", error: TimeExtentError.notAnExtent("x")), "a time extent is START,END or one instant, not 'x'"),
    ])
    func descriptions(error: UsageError, text: String) {
        #expect(error.description == text)
    }
}

@Suite("Both programs read flags with the one parser", .bounded(.io))
struct SharedParserCommandLineTests {
    /// The simulator takes an attached value as entitystream does (`--port=0` is read, and the line then
    /// lacks only something to serve), and says a bad number in the same words.
    @Test func simulatorReadsFlagsAsEntitystreamDoes() async throws {
        let attached = try await CommandLineTool.run("stream-simulator", ["--port=0"])
        #expect(attached.status == 2)
        #expect(attached.standardError == "stream-simulator: missing something to serve: --fleet N, --recording FILE, --service NAME=…, --layer NAME=FILE or --hotspots NAME=FILE\n")
        // Numbers too large to read name the flag's whole range in both programs.
        for (flag, value) in [("--rate", "5000"), ("--speed", "0"), ("--interval", "-1"), ("--seed", "-1"),
                              ("--rate", "1e400"), ("--interval", "99999999999999999999"), ("--seed", "99999999999999999999")] {
            let simulator = try await CommandLineTool.run("stream-simulator", ["--fleet", "1", "\(flag)=\(value)"])
            let entitystream = try await CommandLineTool.run("entitystream", (flag == "--rate" || flag == "--seed" ? ["demo"] : ["replay", "f.json"]) + ["\(flag)=\(value)"])
            #expect(simulator.status == 2 && entitystream.status == 2)
            #expect(simulator.standardError.hasPrefix("stream-simulator: \(flag) expects "), "\(simulator.standardError)")
            #expect(!["1e400", "99999999999999999999"].contains(value) || simulator.standardError.contains(" from "), "\(simulator.standardError)")
            #expect(simulator.standardError.dropFirst("stream-simulator: ".count) == entitystream.standardError.dropFirst("entitystream: ".count),
                    "\(simulator.standardError) \(entitystream.standardError)")
        }
        let service = try await CommandLineTool.run("stream-simulator", ["--service", "plows"])
        #expect(service.status == 2 && service.standardError == "stream-simulator: --service expects NAME=FILE or fleet:N, not 'plows'\n")
        let unknown = try await CommandLineTool.run("stream-simulator", ["--fleet", "1", "--bogus"])
        #expect(unknown.status == 2 && unknown.standardError == "stream-simulator: unknown option '--bogus' (see stream-simulator --help)\n")
    }
}

@Suite("entitystream-bench answers --help", .bounded(.io))
struct BenchmarkHelpTests {
    /// `--help` (anywhere on the line) prints the usage on stdout and runs no benchmark: nothing on stderr,
    /// where every benchmark reports its progress. Runs where the build made the benchmark program (`swift build`).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTool.path("entitystream-bench"))))
    func helpPrintsUsage() async throws {
        for arguments in [["--help"], ["-h"], ["relay", "--help"], ["help"]] {
            let result = try await CommandLineTool.run("entitystream-bench", arguments)
            #expect(result.status == 0 && result.standardError.isEmpty, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.hasPrefix("Usage: entitystream-bench [BENCHMARK] [options]"), "\(arguments)")
        }
        // `help` asks for the usage only where the benchmark goes, never as a second word or a flag's value.
        for arguments in [["relay", "help"], ["relay", "--dir", "help", "--runs", "0"]] {
            let result = try await CommandLineTool.run("entitystream-bench", arguments)
            #expect(result.status == 2 && result.standardOutput.isEmpty, "\(arguments): \(result.standardError)")
        }
    }

    /// The options the benchmarks read, each listed by --help.
    static let options = ["--count", "--runs", "--mb", "--no-peers", "--no-ingestion", "--ais", "--raster", "--world", "--rasterio-count",
                          "--neighbours", "--rounds", "--million", "--baseline", "--seconds", "--rows", "--sizes", "--dir", "--format",
                          "--window", "--clients", "--modes"]

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTool.path("entitystream-bench"))))
    func helpListsEveryOption() async throws {
        let help = try await CommandLineTool.run("entitystream-bench", ["--help"])
        for option in Self.options {
            #expect(help.standardOutput.contains(option), "\(option)")
        }
    }

    /// A bad value, an unknown option or benchmark is a usage error naming it, before any benchmark runs
    /// (nothing on stdout), where the options used to fall back to their defaults.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTool.path("entitystream-bench"))))
    func badOptionsAreRefused() async throws {
        let cases: [([String], String)] = [
            (["json", "--count", "ten"], "--count expects a whole number ≥ 1, not 'ten'"),
            (["replay", "--runs", "0"], "--runs expects a whole number ≥ 1, not '0'"),
            (["relay", "--runs=99999999999999999999"], "--runs expects a whole number from 1 to 9223372036854775807, not '99999999999999999999'"),
            (["files", "--sizes", "1000,x"], "--sizes expects a whole number ≥ 1, not 'x'"),
            (["files", "--format", "parquet"], "--format expects csv or jsonl, not 'parquet'"),
            (["relay", "--modes", "burst,fast"], "--modes expects burst, paced or direct, not 'fast'"),
            (["relay", "--window", "0"], "--window expects a number > 0, not '0'"),
            (["query", "--no-peers=yes"], "--no-peers takes no value (given 'yes')"),
            (["relay", "--client", "5"], "unknown option '--client' (see entitystream-bench --help)"),
            (["compare"], "compare needs --baseline PATH (another build's entitystream, to replay against this build's)"),
            (["json", "replay"], "json: unexpected argument 'replay'; give one benchmark"),
        ]
        for (arguments, message) in cases {
            let result = try await CommandLineTool.run("entitystream-bench", arguments)
            #expect(result.status == 2 && result.standardOutput.isEmpty, "\(arguments): \(result.status)")
            #expect(result.standardError == "entitystream-bench: \(message)\n", "\(arguments)")
        }
        let unknown = try await CommandLineTool.run("entitystream-bench", ["jsn"])
        #expect(unknown.status == 2 && unknown.standardError.hasPrefix("entitystream-bench: unknown command 'jsn' (expected transport, json, "))
    }
}
