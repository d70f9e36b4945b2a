import EntityStreamCore
import Foundation

/// Benchmarks that run the real command-line programs as separate processes,
/// measured by ``MeasuredProcess``: stdout read through a pipe as users run
/// them (`| jq`), each program's own CPU time and peak RSS, the same number
/// of runs for every contender, run in alternation, and medians reported.
enum ProcessBenchmarks {
    /// The directory of this benchmark binary, where `entitystream` and `stream-simulator` are built too.
    static var binaries: URL { URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent() }

    /// Medians of several runs of one contender.
    struct Summary {
        var runs: [MeasuredProcess.Run]
        var seconds: Double { median(runs.map(\.seconds)) }
        var cpuSeconds: Double { median(runs.map(\.cpuSeconds)) }
        var peakKiB: Int { runs.map(\.maximumResidentKiB).max() ?? 0 }
    }

    private static func describe(_ summary: Summary, count: Int) -> String {
        let perObservation = summary.cpuSeconds / Double(count) * 1e6
        return String(format: "median of %d runs; CPU %.2f s (%.2f µs per observation); peak RSS %.1f MB",
                      summary.runs.count, summary.cpuSeconds, perObservation, Double(summary.peakKiB) / 1024)
    }

    /// `entitystream replay` of the AIS recording, cycled to `count` observations, stdout through a pipe.
    static func replay(ais: String, count: Int, runs: Int) throws -> BenchmarkResult {
        let entitystream = binaries.appendingPathComponent("entitystream").path
        let summary = Summary(runs: try (0..<runs).map { _ in try replayRun(entitystream, ais: ais, count: count) })
        return BenchmarkResult(name: "replay: AIS recording cycled, 14 tracks, --max-observations-per-track 1000, stdout through a pipe",
                               count: count, seconds: summary.seconds, unit: "observations", extra: describe(summary, count: count))
    }

    /// One run of the replay benchmark's command by `binary` (this build's
    /// `entitystream` or another's); fails unless it wrote `count` lines or more.
    static func replayRun(_ binary: String, ais: String, count: Int) throws -> MeasuredProcess.Run {
        let run = try MeasuredProcess.run(binary, [
            "replay", ais, "--track-field", "MMSI", "--loop", "--limit", String(count), "--max-observations-per-track", "1000"])
        guard run.status == 0, run.outputLines >= count else {
            throw BenchmarkError("\(binary) replay failed: exit status \(run.status), \(run.outputLines) of at least \(count) lines; stderr: \(run.standardError)")
        }
        return run
    }

    /// `entitystream replay` of a recording of about `megabytes` MB (the AIS
    /// lines repeated, written to a temporary file), once through to its end:
    /// peak RSS must not follow the file's size.
    static func replayLarge(ais: String, megabytes: Int) throws -> BenchmarkResult {
        guard let data = FileManager.default.contents(atPath: ais) else { throw BenchmarkError("cannot read \(ais)") }
        var block = data
        if block.last != UInt8(ascii: "\n") { block.append(UInt8(ascii: "\n")) }
        let linesPerBlock = block.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("entitystream-bench-\(UUID().uuidString).json").path
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchmarkError("cannot create \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        var written = 0
        var lines = 0
        while written < megabytes << 20 {
            handle.write(block)
            written += block.count
            lines += linesPerBlock
        }
        try handle.close()
        let run = try MeasuredProcess.run(binaries.appendingPathComponent("entitystream").path, [
            "replay", path, "--track-field", "MMSI", "--max-observations-per-track", "1000", "--events", "observation"])
        guard run.status == 0, run.outputLines == lines else {
            throw BenchmarkError("entitystream replay of \(path) failed (\(run.status), \(run.outputLines) of \(lines) lines): \(run.standardError)")
        }
        return BenchmarkResult(name: "replay: a \(written >> 20) MB file of AIS lines, once through, stdout through a pipe",
                               count: lines, seconds: run.seconds, unit: "observations",
                               extra: String(format: "CPU %.2f s; peak RSS %.1f MB", run.cpuSeconds, Double(run.maximumResidentKiB) / 1024))
    }

    /// `stream-simulator --burst` to one client over loopback: entitystream and
    /// each peer found, `runs` times each, in alternation, stdout through a pipe.
    static func simulator(ais: String, count: Int, runs: Int) throws -> [BenchmarkResult] {
        let simulator = Process()
        simulator.executableURL = binaries.appendingPathComponent("stream-simulator")
        simulator.arguments = ["--recording", ais, "--track-field", "MMSI", "--burst", "--loop", "--port", "0"]
        let announcements = Pipe()
        simulator.standardError = announcements
        simulator.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try simulator.run()
        defer {
            simulator.terminate()
            simulator.waitUntilExit()
        }
        var text = ""
        while !text.contains("service ") {
            let chunk = announcements.fileHandleForReading.availableData
            if chunk.isEmpty { throw BenchmarkError("stream-simulator did not start: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let portText = text.split(separator: "\n").first(where: { $0.contains("listening on") })?.split(separator: " ").last,
              let port = Int(portText) else { throw BenchmarkError("stream-simulator announced no port: \(text)") }
        let name = URL(fileURLWithPath: ais).deletingPathExtension().lastPathComponent
        let rest = "http://127.0.0.1:\(port)/arcgis/rest/services/\(name)/StreamServer"
        let socket = "ws://127.0.0.1:\(port)/arcgis/ws/services/\(name)/StreamServer/subscribe"
        let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers")

        struct Contender {
            let name: String
            let executable: String
            let arguments: [String]
        }
        var contenders = [Contender(
            name: "simulator --burst → entitystream connect (loopback, stdout through a pipe)",
            executable: binaries.appendingPathComponent("entitystream").path,
            arguments: ["connect", rest, "--limit", String(count), "--events", "observation",
                        "--max-observations-per-track", "1000", "--max-duration", "300"])]
        if let node = which("node") {
            contenders.append(Contender(name: "simulator --burst → Node.js client (WebSocket + JSON.parse, same store and output)",
                                        executable: node,
                                        arguments: ["--no-warnings", "--experimental-websocket", peers.appendingPathComponent("node-client.mjs").path,
                                                    socket, "MMSI", String(count)]))
        } else {
            FileHandle.standardError.write(Data("node not found: Node.js comparison skipped\n".utf8))
        }
        if let python = which("python3") {
            if (try? MeasuredProcess.run(python, ["-c", "import websockets, orjson"]))?.status == 0 {
                contenders.append(Contender(name: "simulator --burst → Python client (websockets + orjson, same store and output)",
                                            executable: python,
                                            arguments: [peers.appendingPathComponent("python-client.py").path, socket, "MMSI", String(count)]))
            } else {
                FileHandle.standardError.write(Data("python3 lacks websockets/orjson (pip install websockets orjson): comparison skipped\n".utf8))
            }
        }
        var measured = Array(repeating: [MeasuredProcess.Run](), count: contenders.count)
        for _ in 0..<runs {
            for (index, contender) in contenders.enumerated() {
                let run = try MeasuredProcess.run(contender.executable, contender.arguments)
                guard run.status == 0, run.outputLines >= count else {
                    throw BenchmarkError("\(contender.name) failed (\(run.status), \(run.outputLines) of \(count) lines): \(run.standardError)")
                }
                measured[index].append(run)
            }
        }
        let ours = Summary(runs: measured[0])
        return contenders.indices.map { index in
            let summary = Summary(runs: measured[index])
            var extra = describe(summary, count: count)
            if index > 0 { extra += String(format: "; entitystream is %.1f× faster", summary.seconds / ours.seconds) }
            return BenchmarkResult(name: contenders[index].name, count: count, seconds: summary.seconds, unit: "observations", extra: extra)
        }
    }

    static func which(_ program: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
