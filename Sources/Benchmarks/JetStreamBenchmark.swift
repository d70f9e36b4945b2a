import Foundation

/// `entitystream-bench jetstream`: replay → JetStream publish and JetStream
/// → consume → pipe, COUNT AIS observations (the recording's lines, each
/// copy with its own globalid so no two are the same observation), file
/// storage, one nats-server on loopback; against the nats-py peer
/// (Peers/jetstream-peer.py) doing the same in the same rounds, when
/// python3 can import nats. Each round starts a fresh server and alternates
/// who goes first; medians are reported, with each program's CPU (and per
/// observation), its peak RSS, and the nats-server's CPU during its run
/// (from `/proc/PID/stat`): what the broker itself costs per message bounds
/// any client on the same cores.
enum JetStreamBenchmark {
    static func run(ais: String, count: Int, rounds: Int, peers: Bool = true) throws -> [String] {
        guard let server = ["/usr/sbin/nats-server", "/usr/bin/nats-server"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return ["jetstream: skipped (nats-server is not installed; make setup installs it)"]
        }
        let file = try writeInput(ais: ais, count: count)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let entitystream = ProcessBenchmarks.binaries.appendingPathComponent("entitystream").path
        let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/jetstream-peer.py").path
        let python = peers && peerAvailable()
        var results: [String: [MeasuredProcess.Run]] = [:]
        var serverCPU: [String: [Double]] = [:]
        for round in 0..<rounds {
            let broker = try Broker(executable: server)
            defer { broker.stop() }
            let url = "nats://127.0.0.1:\(broker.port)"
            var publishers: [(String, () throws -> MeasuredProcess.Run)] = [
                ("entitystream publish", {
                    try MeasuredProcess.run(entitystream, ["replay", file, "--track-field", "MMSI", "--events", "observation",
                                                           "--publish", "\(url)/es", "--create-stream", "ES"])
                }),
            ]
            var consumers: [(String, () throws -> MeasuredProcess.Run)] = [
                ("entitystream consume", {
                    try MeasuredProcess.run(entitystream, ["consume", "\(url)/ES", "--durable", "bench", "--from-start", "--events", "observation",
                                                           "--limit", String(count)])
                }),
            ]
            if python {
                publishers.append(("nats-py publish", {
                    try MeasuredProcess.run("/usr/bin/env", ["python3", peer, "publish", url, "py", file, "MMSI", "4096", "PY"])
                }))
                consumers.append(("nats-py consume", { try MeasuredProcess.run("/usr/bin/env", ["python3", peer, "consume", url, "PY", String(count)]) }))
            }
            if round % 2 == 1 {
                publishers.reverse()
                consumers.reverse()
            }
            for (name, body) in publishers + consumers {
                let serverBefore = broker.cpuSeconds()
                let run = try body()
                serverCPU[name, default: []].append(broker.cpuSeconds() - serverBefore)
                guard run.status == 0, run.outputLines >= count else {
                    throw BenchmarkError("\(name) failed: status \(run.status), \(run.outputLines) of \(count) lines; \(run.standardError.suffix(600))")
                }
                results[name, default: []].append(run)
            }
        }
        var lines = ["jetstream: \(count) AIS observations, file storage, one nats-server on loopback, \(rounds) rounds (fresh server each, "
                     + "order alternating), stdout through a pipe; load average \(loadAverage())"]
        for name in ["entitystream publish", "nats-py publish", "entitystream consume", "nats-py consume"] {
            guard let runs = results[name] else {
                lines.append("jetstream: \(name): skipped (" + (peers ? "python3 cannot import nats; pip install nats-py" : "--no-peers") + ")")
                continue
            }
            let seconds = median(runs.map(\.seconds))
            let cpu = median(runs.map(\.cpuSeconds))
            let server = median(serverCPU[name] ?? [0])
            lines.append(String(format: "jetstream: %@: median %.2f s, %.0f observations/s; CPU %.2f s (%.2f µs/observation); "
                                + "nats-server CPU %.2f s (%.2f µs/observation); peak RSS %.1f MB (runs: %@)",
                                name, seconds, Double(count) / seconds, cpu, cpu * 1e6 / Double(count), server, server * 1e6 / Double(count),
                                Double(runs.map(\.maximumResidentKiB).max() ?? 0) / 1024,
                                runs.map { String(format: "%.2f", $0.seconds) }.joined(separator: ", ")))
        }
        for kind in ["publish", "consume"] {
            if let ours = results["entitystream \(kind)"], let theirs = results["nats-py \(kind)"] {
                let ratios = zip(ours, theirs).map { $1.seconds / $0.seconds }
                lines.append(String(format: "jetstream: %@: entitystream %.1fx the nats-py peer (median of %d paired ratios)", kind, median(ratios), ratios.count))
            }
        }
        return lines
    }

    static func peerAvailable() -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import nats"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }

    /// COUNT lines of the recording, cycled, each copy's globalid made its own.
    static func writeInput(ais: String, count: Int) throws -> String {
        guard let text = try? String(contentsOfFile: ais, encoding: .utf8) else { throw BenchmarkError("cannot read \(ais)") }
        let lines = text.split(separator: "\n").filter { !$0.isEmpty }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("entitystream-jetstream-\(UUID().uuidString).json").path
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchmarkError("cannot create \(path)")
        }
        var chunk = ""
        for index in 0..<count {
            let line = lines[index % lines.count]
            chunk += line.replacingOccurrences(of: "\"globalid\":\"{", with: "\"globalid\":\"{\(index / lines.count)-")
            chunk += "\n"
            if chunk.utf8.count > 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data(chunk.utf8))
        try handle.close()
        return path
    }

    /// A nats-server with JetStream on a free loopback port, storage in a temporary directory.
    final class Broker {
        let process = Process()
        let storage: String
        private(set) var port = 0

        init(executable: String) throws {
            storage = FileManager.default.temporaryDirectory.appendingPathComponent("entitystream-bench-nats-\(UUID().uuidString)").path
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-a", "127.0.0.1", "-p", "-1", "-js", "-sd", storage]
            let log = Pipe()
            process.standardError = log
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            var text = ""
            while !text.contains("Server is ready") {
                let chunk = log.fileHandleForReading.availableData
                if chunk.isEmpty { throw BenchmarkError("nats-server did not start: \(text)") }
                text += String(decoding: chunk, as: UTF8.self)
            }
            guard let line = text.split(separator: "\n").first(where: { $0.contains("Listening for client connections on") }),
                  let found = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw BenchmarkError("nats-server announced no port: \(text)")
            }
            port = found
        }

        /// The server's CPU time so far (user + system), seconds.
        func cpuSeconds() -> Double {
            guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return 0 }
            // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: storage)
        }
    }
}
