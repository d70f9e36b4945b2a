import EntityStreamCore
import Foundation

/// Benchmarks that run the real command-line programs as separate processes.
enum ProcessBenchmarks {
    /// The directory of this benchmark binary, where `entitystream` and `stream-simulator` are built too.
    static var binaries: URL { URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent() }

    /// Runs a program to completion with stdout to /dev/null; returns seconds and exit status.
    static func time(_ executable: String, _ arguments: [String]) throws -> (seconds: Double, status: Int32, standardError: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let errors = Pipe()
        process.standardError = errors
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return ((clock.now - start).seconds, process.terminationStatus, errorText)
    }

    /// `entitystream replay` of the AIS recording, cycled to `count` observations.
    static func replay(ais: String, count: Int) throws -> BenchmarkResult {
        var best: Double = .infinity
        for _ in 0..<3 {
            let run = try time(binaries.appendingPathComponent("entitystream").path, [
                "replay", ais, "--track-field", "MMSI", "--loop", "--limit", String(count), "--max-observations-per-track", "1000"])
            guard run.status == 0 else { throw BenchmarkError("entitystream replay failed: \(run.standardError)") }
            best = min(best, run.seconds)
        }
        return BenchmarkResult(name: "replay: AIS recording cycled, 14 tracks, --max-observations-per-track 1000, stdout to /dev/null",
                               count: count, seconds: best, unit: "observations", extra: "whole process, best of 3")
    }

    /// `stream-simulator --burst` to one client over loopback, for entitystream and the peers found.
    static func simulator(ais: String, count: Int) throws -> [BenchmarkResult] {
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
        var results: [BenchmarkResult] = []
        var best: Double = .infinity
        for _ in 0..<3 {
            let run = try time(binaries.appendingPathComponent("entitystream").path, [
                "connect", rest, "--limit", String(count), "--events", "observation",
                "--max-observations-per-track", "1000", "--max-duration", "300"])
            guard run.status == 0 else { throw BenchmarkError("entitystream connect failed: \(run.standardError)") }
            best = min(best, run.seconds)
        }
        results.append(BenchmarkResult(name: "simulator --burst → entitystream connect (loopback, stdout to /dev/null)",
                                       count: count, seconds: best, unit: "observations", extra: "whole process, best of 3"))
        let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers")
        if let node = which("node") {
            let run = try time(node, ["--experimental-websocket", peers.appendingPathComponent("node-client.mjs").path, socket, "MMSI", String(count)])
            if run.status == 0 {
                results.append(BenchmarkResult(name: "simulator --burst → Node.js client (WebSocket + JSON.parse)", count: count,
                                               seconds: run.seconds, unit: "observations", extra: "same store and output"))
            } else {
                FileHandle.standardError.write(Data("node client failed: \(run.standardError)\n".utf8))
            }
        } else {
            FileHandle.standardError.write(Data("node not found: Node.js comparison skipped\n".utf8))
        }
        if let python = which("python3") {
            let check = try time(python, ["-c", "import websockets, orjson"])
            if check.status == 0 {
                let run = try time(python, [peers.appendingPathComponent("python-client.py").path, socket, "MMSI", String(count)])
                if run.status == 0 {
                    results.append(BenchmarkResult(name: "simulator --burst → Python client (websockets + orjson)", count: count,
                                                   seconds: run.seconds, unit: "observations", extra: "same store and output"))
                } else {
                    FileHandle.standardError.write(Data("python client failed: \(run.standardError)\n".utf8))
                }
            } else {
                FileHandle.standardError.write(Data("python3 lacks websockets/orjson (pip install websockets orjson): comparison skipped\n".utf8))
            }
        }
        return results
    }

    static func which(_ program: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
