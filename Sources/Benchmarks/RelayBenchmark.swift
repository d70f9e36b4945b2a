import Foundation
import EntityStreamTransport

/// `entitystream-bench relay`: `stream-simulator`'s fleet through
/// `entitystream serve` to 1, 10 and 100 WebSocket clients (``RelayReaders``).
///
/// - **Burst**: the simulator sends as fast as the relay's socket takes
///   (`--burst`); over a measured window (after a warm-up): messages
///   delivered to the clients per second in total, the relay's CPU (user +
///   system, from `/proc/PID/stat`) per delivered message, its peak RSS
///   (`VmHWM`), and what its slow-client policy dropped (`/status`).
/// - **Fixed rate**: 100 vehicles × 100 reports/s = 10,000 observations/s;
///   the latency of every delivered message from the fleet's `lastupdate`
///   (when the simulator sends it) to the client's receipt — the relay's
///   "upstream receipt to client delivery" plus the simulator's own lag and
///   one loopback hop, so an upper bound; the same clients on the
///   simulator directly give that baseline.
///
/// Each configuration runs `runs` times, in alternating order, and the
/// medians are reported. With a baseline (`--baseline PATH`, another build's
/// `entitystream`), each run of this build is paired with one of the
/// baseline's on the same simulator build, the order alternating, and both
/// medians are reported.
enum RelayBenchmark {
    struct Child {
        let process: Process
        let port: Int
        let log: LogCollector

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// A child's stderr, read on a thread (so that it never blocks on a full pipe).
    final class LogCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        init(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            Thread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    self.lock.withLock { self.text += String(decoding: data, as: UTF8.self) }
                }
            }.start()
        }
        var current: String { lock.withLock { text } }

        /// Waits (up to 30 s) until a line contains `marker`; returns that line.
        func line(containing marker: String) throws -> String {
            for _ in 0..<3000 {
                if let line = current.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
                usleep(10_000)
            }
            throw BenchmarkError("no '\(marker)' in: \(current.suffix(2000))")
        }
    }

    static func start(_ program: String, _ arguments: [String], ready: String? = nil) throws -> Child {
        try start(executable: ProcessBenchmarks.binaries.appendingPathComponent(program), arguments, ready: ready)
    }

    static func start(executable: URL, _ arguments: [String], ready: String? = nil) throws -> Child {
        let program = executable.lastPathComponent
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        let log = LogCollector(errors)
        let line = try log.line(containing: "listening on")
        guard let port = line.split(separator: " ").last.flatMap({ Int($0) }) else { throw BenchmarkError("\(program) announced no port: \(line)") }
        if let ready { _ = try log.line(containing: ready) }
        return Child(process: process, port: port, log: log)
    }

    /// The relay's CPU time so far, seconds (user + system).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return .nan }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Published, dropped before the fan-out, and dropped for slow clients, from the relay's `/status`.
    static func status(_ port: Int) async -> (published: Int64, before: Int64, dropped: Int64) {
        guard let body = try? await HTTPClient().get("http://127.0.0.1:\(port)/status").body,
              let text = String(data: Data(body), encoding: .utf8),
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let service = (object["services"] as? [[String: Any]])?.first else { return (0, 0, 0) }
        let stream = service["stream"] as? [String: Any] ?? [:]
        let clients = service["clients"] as? [[String: Any]] ?? []
        let dropped = clients.reduce(Int64(0)) { $0 + Int64(($1["dropped"] as? Int) ?? 0) } + Int64((stream["departedDropped"] as? Int) ?? 0)
        return (Int64((stream["published"] as? Int) ?? 0), Int64((stream["droppedBeforeFanOut"] as? Int) ?? 0), dropped)
    }

    struct Measure {
        var delivered: Double = 0
        var cpuPerMessage: Double = 0
        var peakMB: Double = 0
        var upstream: Double = 0
        var droppedShare: Double = 0
        var p50: Double = 0
        var p99: Double = 0
    }

    static let path = "/arcgis/ws/services/SandyVehicles/StreamServer/subscribe"

    /// One run: a simulator with `simulatorArguments`, the relay (or none: the clients on the simulator), `clients` readers.
    /// `relay`: the `entitystream` to serve with (nil: the clients read the simulator directly).
    static func measure(clients: Int, simulatorArguments: [String], relay relayExecutable: URL?, latency: Bool,
                        warmup: Double, window: Double) async throws -> Measure {
        let simulator = try start("stream-simulator", ["--port", "0", "--no-related", "--no-archive"] + simulatorArguments)
        defer { simulator.stop() }
        var relay: Child?
        defer { relay?.stop() }
        let throughRelay = relayExecutable != nil
        if let relayExecutable {
            relay = try start(executable: relayExecutable, ["serve", "http://127.0.0.1:\(simulator.port)/arcgis/rest/services/SandyVehicles/StreamServer",
                                               "--port", "0", "--events", "status,error", "--max-clients", "1000"], ready: "described its stream")
        }
        let port = relay?.port ?? simulator.port
        let readers = try RelayReaders(port: port, path: path, count: clients, latency: latency)
        defer { readers.stop() }
        let pid = relay?.process.processIdentifier ?? simulator.process.processIdentifier
        usleep(UInt32(warmup * 1_000_000))
        _ = readers.takeLatencies()
        let (messages0, _, _) = readers.counts
        let cpu0 = cpuSeconds(pid)
        let none: (published: Int64, before: Int64, dropped: Int64) = (0, 0, 0)
        let status0 = throughRelay ? await status(port) : none
        let started = ContinuousClock.now
        usleep(UInt32(window * 1_000_000))
        let (messages1, _, closed) = readers.counts
        let cpu1 = cpuSeconds(pid)
        let elapsed = (ContinuousClock.now - started).seconds
        let status1 = throughRelay ? await status(port) : none
        let latencies = readers.takeLatencies().sorted()
        guard closed == 0 else { throw BenchmarkError("\(closed) of \(clients) clients were closed (policy close?)") }
        var result = Measure()
        let delivered = Double(messages1 - messages0)
        result.delivered = delivered / elapsed
        result.cpuPerMessage = delivered > 0 ? (cpu1 - cpu0) / delivered : .nan
        result.peakMB = Double(ProcessStatus.kilobytes("VmHWM:", pid: pid) ?? 0) / 1024
        result.upstream = Double(status1.published - status0.published) / elapsed
        // What reached the relay's fan-out or was dropped before it, times the clients: what they could have got.
        let before = Double(status1.before - status0.before)
        let offered = (Double(status1.published - status0.published) + before) * Double(clients)
        let lost = Double(status1.dropped - status0.dropped) + before * Double(clients)
        result.droppedShare = offered > 0 ? lost / offered : 0
        if !latencies.isEmpty {
            result.p50 = Double(latencies[latencies.count / 2]) / 1000
            result.p99 = Double(latencies[min(latencies.count - 1, latencies.count * 99 / 100)]) / 1000
        }
        return result
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// What to measure: `burst`, `paced` (10,000 observations/s through the relay), `direct` (the same on the simulator).
    enum Mode: String, CaseIterable { case burst, paced, direct }

    static func run(runs: Int, clientCounts: [Int] = [1, 10, 100], window: Double = 5, modes: Set<Mode> = Set(Mode.allCases),
                    baseline: URL? = nil) async throws -> [String] {
        var lines: [String] = []
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        lines.append("relay: machine load average \(load) at the start; \(runs) runs per configuration, alternating, medians"
                     + (baseline.map { "; paired with the baseline \($0.path)" } ?? ""))
        let current = ProcessBenchmarks.binaries.appendingPathComponent("entitystream")
        // The builds compared: this one, then the baseline's (each run of one is paired with one of the other).
        let builds = [("", current)] + (baseline.map { [("baseline ", $0)] } ?? [])
        var burst: [String: [Int: [Measure]]] = [:]
        var paced: [String: [Int: [Measure]]] = [:]
        var direct: [Measure] = []
        for round in 0..<runs {
            let order = round % 2 == 0 ? clientCounts : clientCounts.reversed()
            let pairs = round % 2 == 0 ? builds : builds.reversed()
            if modes.contains(.burst) {
                for clients in order {
                    for (label, relay) in pairs {
                        burst[label, default: [:]][clients, default: []].append(
                            try await measure(clients: clients, simulatorArguments: ["--fleet", "100", "--burst"], relay: relay,
                                              latency: false, warmup: 1, window: window))
                    }
                }
            }
            if modes.contains(.paced) {
                for clients in order {
                    for (label, relay) in pairs {
                        paced[label, default: [:]][clients, default: []].append(
                            try await measure(clients: clients, simulatorArguments: ["--fleet", "100", "--rate", "100"], relay: relay,
                                              latency: true, warmup: 2, window: window))
                    }
                }
            }
            if modes.contains(.direct) {
                direct.append(try await measure(clients: 1, simulatorArguments: ["--fleet", "100", "--rate", "100"], relay: nil,
                                                latency: true, warmup: 2, window: window))
            }
        }
        for (label, _) in builds {
            for clients in clientCounts {
                guard let runs = burst[label]?[clients] else { continue }
                lines.append(String(format: "%@relay burst, %d client%@: %.0f messages/s delivered in total (upstream %.0f observations/s), %.3f µs relay CPU per delivered message, peak RSS %.1f MB, %.1f %% dropped by policy",
                                    label, clients, clients == 1 ? "" : "s", median(runs.map(\.delivered)), median(runs.map(\.upstream)),
                                    median(runs.map(\.cpuPerMessage)) * 1e6, median(runs.map(\.peakMB)), median(runs.map(\.droppedShare)) * 100)
                             + values(runs))
            }
        }
        for (label, _) in builds {
            for clients in clientCounts {
                guard let runs = paced[label]?[clients] else { continue }
                lines.append(String(format: "%@relay at 10,000 observations/s, %d client%@: latency median %.2f ms, p99 %.2f ms; %.0f messages/s delivered, %.3f µs relay CPU per delivered message, peak RSS %.1f MB, %.2f %% dropped",
                                    label, clients, clients == 1 ? "" : "s", median(runs.map(\.p50)), median(runs.map(\.p99)), median(runs.map(\.delivered)),
                                    median(runs.map(\.cpuPerMessage)) * 1e6, median(runs.map(\.peakMB)), median(runs.map(\.droppedShare)) * 100)
                             + values(runs))
            }
        }
        if !direct.isEmpty {
            lines.append(String(format: "baseline, the same client on the simulator directly at 10,000 observations/s: latency median %.2f ms, p99 %.2f ms",
                                median(direct.map(\.p50)), median(direct.map(\.p99))))
        }
        return lines
    }

    /// Every run's figures, when there were several: delivered/s, relay CPU per message, p99 (when measured) and peak RSS.
    private static func values(_ runs: [Measure]) -> String {
        guard runs.count > 1 else { return "" }
        return " [runs: " + runs.map { run in
            String(format: "%.0f/s %.3f µs", run.delivered, run.cpuPerMessage * 1e6) + (run.p99 > 0 ? String(format: " p99 %.2f ms", run.p99) : "")
                + String(format: " %.1f MB", run.peakMB)
        }.joined(separator: "; ") + "]"
    }
}
