import EntityStreamCore
import Foundation
import EntityStreamHotSpots
import EntityStreamModel

/// `entitystream-bench hotspots`: Gi* with a fixed distance band on seeded
/// random weighted points, against PySAL esda (`G_Local(y, w, transform='B',
/// star=True, permutations=0)` with `libpysal.weights.DistanceBand(points,
/// threshold, binary=True)`) on the same points when python3 can import
/// both; then the engine alone on a million points in a child process, for
/// time and peak RSS.
enum HotSpotBenchmark {
    /// Points uniform in a 10,000 × 10,000 square; values uniform 15…25 plus 10
    /// in the south-west sixteenth (a hot spot) and −10 in the north-east one.
    /// All positive: esda's G_Local divides by ȳ, so with a negative sum its z
    /// flips sign (Esri's Gi* does not depend on the sign of the mean).
    static func points(count: Int, seed: UInt64 = 20_260_101) -> (x: [Double], y: [Double], values: [Double]) {
        var random = SplitMix64(seed: seed)
        var x = [Double](), y = [Double](), v = [Double]()
        x.reserveCapacity(count)
        y.reserveCapacity(count)
        v.reserveCapacity(count)
        for _ in 0..<count {
            let px = random.uniform(0, 10_000), py = random.uniform(0, 10_000)
            let trend = px < 2_500 && py < 2_500 ? 10.0 : (px > 7_500 && py > 7_500 ? -10 : 0)
            x.append(px)
            y.append(py)
            v.append(trend + random.uniform(15, 25))
        }
        return (x, y, v)
    }

    /// The band that holds about `neighbours` other points around a point
    /// away from the edges: π r² · density = neighbours.
    static func band(count: Int, neighbours: Int) -> Double {
        (Double(neighbours) / (Double.pi * Double(count) / 1e8)).squareRoot()
    }

    /// Stage timestamps from the monitor (first report of each stage).
    final class StageClock: @unchecked Sendable {
        private let lock = NSLock()
        private let clock = ContinuousClock()
        private let start: ContinuousClock.Instant
        private var firstSeen: [HotSpotMonitor.Stage: Double] = [:]
        init() { start = clock.now }
        func seen(_ stage: HotSpotMonitor.Stage) {
            lock.lock()
            defer { lock.unlock() }
            if firstSeen[stage] == nil { firstSeen[stage] = (clock.now - start).seconds }
        }
        func at(_ stage: HotSpotMonitor.Stage) -> Double {
            lock.lock()
            defer { lock.unlock() }
            return firstSeen[stage] ?? .nan
        }
    }

    /// One engine run: (index build, Gi* with p and bins, total) seconds and the z-scores.
    static func engineRun(_ input: HotSpotInput, band: Double) throws
        -> (index: Double, gi: Double, total: Double, cpu: Double, z: [Double], neighbours: Double) {
        let stages = StageClock()
        let monitor = HotSpotMonitor(progress: { _, stage in stages.seen(stage) })
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = cpuSeconds()
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: band, fdr: false)).run(input, monitor: monitor)
        let cpu = cpuSeconds() - cpuStart
        let total = (clock.now - start).seconds
        let giStart = stages.at(.computingGiStar)
        let neighbours = result.features.reduce(0.0) { $0 + Double($1.neighborCount) } / Double(result.features.count)
        return (giStart, total - giStart, total, cpu, result.features.map { $0.zScore ?? .nan }, neighbours)
    }

    /// CPU time of this process (the machine is shared: wall time varies with load).
    static func cpuSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func run(count: Int, neighbours: Int, rounds: Int, millionCount: Int, executable: String) throws -> [String] {
        var lines: [String] = []
        let data = points(count: count)
        let band = band(count: count, neighbours: neighbours)
        var input = HotSpotInput(kind: .weighted, capacity: count)
        for i in 0..<count { input.append(x: data.x[i], y: data.y[i], value: data.values[i]) }

        // The same points for the peer, written with round-trip precision.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entitystream-hotspots-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("points.csv")
        var text = "x,y,value\n"
        text.reserveCapacity(count * 64)
        for i in 0..<count { text += "\(data.x[i]),\(data.y[i]),\(data.values[i])\n" }
        try text.write(to: csv, atomically: true, encoding: .utf8)
        let zFile = directory.appendingPathComponent("esda-z.bin")

        let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/esda-hotspots.py")
        var python: String?
        if let candidate = ProcessBenchmarks.which("python3"),
           (try? MeasuredProcess.run(candidate, ["-c", "import esda, libpysal"], output: .devNull).status) == 0 {
            python = candidate
        } else {
            FileHandle.standardError.write(Data("python3 lacks esda/libpysal (pip install esda libpysal): comparison skipped\n".utf8))
        }

        var ours: [(index: Double, gi: Double, total: Double, cpu: Double)] = []
        var theirs: [(weights: Double, glocal: Double, cpu: Double)] = []
        var ourZ: [Double] = []
        var meanNeighbours = 0.0
        _ = try engineRun(input, band: band)   // warm-up (page faults, caches)
        for round in 0..<max(rounds, 1) {
            let run = try engineRun(input, band: band)
            ours.append((run.index, run.gi, run.total, run.cpu))
            if round == 0 {
                ourZ = run.z
                meanNeighbours = run.neighbours
            }
            FileHandle.standardError.write(Data(String(format: "round %d: engine %.4f s", round + 1, run.total).utf8))
            if let python {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: python)
                process.arguments = [peer.path, csv.path, "\(band)", zFile.path]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                let answer = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                guard process.terminationStatus == 0,
                      let json = try? JSONParser.parse(Array(answer)),
                      let weights = json["weights"]?.doubleValue, let glocal = json["glocal"]?.doubleValue,
                      let cpu = json["cpu"]?.doubleValue else {
                    throw BenchmarkError("esda peer failed: \(String(decoding: answer, as: UTF8.self))")
                }
                theirs.append((weights, glocal, cpu))
                FileHandle.standardError.write(Data(String(format: ", esda %.2f s", weights + glocal).utf8))
            }
            FileHandle.standardError.write(Data("\n".utf8))
        }

        let index = median(ours.map(\.index)), gi = median(ours.map(\.gi)), total = median(ours.map(\.total))
        lines.append(String(format: "hotspots: Gi* on %d weighted points, band %.3f (%.1f neighbours on average), median of %d runs",
                            count, band, meanNeighbours, ours.count))
        let cpu = median(ours.map(\.cpu))
        lines.append(String(format: "  entitystream HotSpots: %.1f ms (index %.1f ms + Gi*/p/bins %.1f ms); CPU %.1f ms",
                            total * 1e3, index * 1e3, gi * 1e3, cpu * 1e3))
        if !theirs.isEmpty {
            let weights = median(theirs.map(\.weights)), glocal = median(theirs.map(\.glocal))
            let peerTotal = median(theirs.map { $0.weights + $0.glocal })
            let peerCPU = median(theirs.map(\.cpu))
            lines.append(String(format: "  PySAL esda: %.0f ms (DistanceBand %.0f ms + G_Local %.0f ms); CPU %.0f ms",
                                peerTotal * 1e3, weights * 1e3, glocal * 1e3, peerCPU * 1e3))
            lines.append(String(format: "  speed-up: %.0f× overall, %.0f× in CPU time (index vs DistanceBand %.0f×, Gi* vs G_Local %.0f×)",
                                peerTotal / total, peerCPU / cpu, weights / index, glocal / gi))
            // Equal z: compare where both are defined.
            let bytes = try Data(contentsOf: zFile)
            let esdaZ = bytes.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
            guard esdaZ.count == ourZ.count else { throw BenchmarkError("esda wrote \(esdaZ.count) z-scores for \(ourZ.count) points") }
            var maximum = 0.0, mismatched = 0, undefined = 0
            for i in ourZ.indices {
                if ourZ[i].isNaN || esdaZ[i].isNaN {
                    if ourZ[i].isNaN != esdaZ[i].isNaN { mismatched += 1 } else { undefined += 1 }
                    continue
                }
                let difference = abs(ourZ[i] - esdaZ[i])
                maximum = max(maximum, difference)
                if difference > 1e-9 { mismatched += 1 }
            }
            lines.append(String(format: "  z equal to 1e-9: %@ (largest difference %.2e, %d undefined in both, %d mismatched)",
                                mismatched == 0 ? "yes" : "NO", maximum, undefined, mismatched))
            if mismatched > 0 { throw BenchmarkError(lines.joined(separator: "\n")) }
        }
        if millionCount > 0 {
            for mode in ["given", "chosen"] {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: executable)
                child.arguments = ["hotspots-memory", "--count", String(millionCount), "--neighbours", String(neighbours), "--band", mode]
                let output = Pipe()
                child.standardOutput = output
                try child.run()
                let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                child.waitUntilExit()
                guard child.terminationStatus == 0 else { throw BenchmarkError("hotspots-memory failed: \(answer)") }
                lines.append("  " + answer.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        return lines
    }

    /// The child process: one engine run on `count` points; time and peak RSS.
    static func memory(count: Int, neighbours: Int, chooseBand: Bool) throws -> String {
        let baseline = ProcessStatus.kilobytes("VmRSS:") ?? 0
        let data = points(count: count)
        var input = HotSpotInput(kind: .weighted, capacity: count)
        for i in 0..<count { input.append(x: data.x[i], y: data.y[i], value: data.values[i]) }
        let loaded = ProcessStatus.kilobytes("VmRSS:") ?? 0
        let band = band(count: count, neighbours: neighbours)
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = cpuSeconds()
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: chooseBand ? nil : band)).run(input)
        let seconds = (clock.now - start).seconds
        let cpu = cpuSeconds() - cpuStart
        let peak = ProcessStatus.kilobytes("VmHWM:") ?? 0
        let decision = result.summary.distanceBand
        return String(format: "%d points, band %@ %.3f: %.2f s (CPU %.2f s), peak RSS %.0f MB (%.0f MB before the input, %.0f MB with input and coordinates; %.0f bytes per point above that)",
                      count, chooseBand ? "chosen (\(decision.choice.name))" : "given", decision.band, seconds, cpu,
                      Double(peak) / 1024, Double(baseline) / 1024, Double(loaded) / 1024,
                      Double(peak - loaded) * 1024 / Double(count))
    }
}
