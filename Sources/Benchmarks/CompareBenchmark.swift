import Foundation

/// `entitystream-bench compare --baseline PATH`: the replay benchmark's
/// command run by another build of `entitystream` (the baseline) and by this
/// one, in paired rounds, to tell whether a change made replay faster.
///
/// This machine's virtual CPUs drift between runs (the same build's replay
/// took 1.0 s in one minute and 1.9 s in another), so two medians taken a
/// few minutes apart compare the machine, not the builds. Each round runs
/// both builds back to back, in an order that alternates between rounds,
/// and the figure is the median of the rounds' ratios (this build over the
/// baseline), with the spread of those ratios beside it. Same work on both
/// sides, stdout through a pipe read by this process.
enum CompareBenchmark {
    struct Side {
        var runs: [MeasuredProcess.Run] = []
        var wall: Double { median(runs.map(\.seconds)) }
        var cpu: Double { median(runs.map(\.cpuSeconds)) }
        var peakMiB: Double { Double(runs.map(\.maximumResidentKiB).max() ?? 0) / 1024 }
    }

    static func run(ais: String, baseline: String, count: Int, rounds: Int) throws -> [String] {
        guard FileManager.default.isExecutableFile(atPath: baseline) else {
            throw BenchmarkError("compare: --baseline \(baseline) is not an executable (give the path of another build's entitystream)")
        }
        let current = ProcessBenchmarks.binaries.appendingPathComponent("entitystream").path
        let arguments = ["replay", ais, "--track-field", "MMSI", "--loop", "--limit", String(count), "--max-observations-per-track", "1000"]
        var base = Side()
        var this = Side()
        for round in 0..<rounds {
            let order = round % 2 == 0 ? [baseline, current] : [current, baseline]
            for binary in order {
                let run = try MeasuredProcess.run(binary, arguments)
                guard run.status == 0, run.outputLines >= count else {
                    throw BenchmarkError("compare: \(binary) replay failed (\(run.status), \(run.outputLines) lines): \(run.standardError)")
                }
                if binary == baseline { base.runs.append(run) } else { this.runs.append(run) }
            }
        }
        let wallRatios = zip(this.runs, base.runs).map { $0.seconds / $1.seconds }.sorted()
        let cpuRatios = zip(this.runs, base.runs).map { $0.cpuSeconds / $1.cpuSeconds }.sorted()
        func describe(_ side: Side) -> String {
            String(format: "%.3f s wall (%.0f observations/s), %.2f s CPU, peak RSS %.1f MB", side.wall, Double(count) / side.wall, side.cpu, side.peakMiB)
        }
        return [
            "compare: replay of \(count) observations through a pipe, \(rounds) paired rounds, order alternating",
            "  baseline \(baseline): " + describe(base),
            "  this build: " + describe(this),
            String(format: "  this build / baseline, median of the rounds: wall %.3f (rounds %.3f–%.3f), CPU %.3f (rounds %.3f–%.3f)",
                   median(wallRatios), wallRatios.first ?? 0, wallRatios.last ?? 0, median(cpuRatios), cpuRatios.first ?? 0, cpuRatios.last ?? 0),
        ]
    }
}
