import Foundation

/// `entitystream-bench compare --baseline PATH`: the replay benchmark's
/// command run by another build of `entitystream` (the baseline) and by this
/// one, in paired rounds, to tell whether a change made replay faster.
///
/// This machine's virtual CPUs drift (the same build replayed at 567,000
/// and at 978,000 observations/s a few minutes apart), so two medians taken
/// minutes apart compare the machine, not the builds. Each round runs both
/// builds back to back, in an order that alternates between rounds, and the
/// figure is the median of the rounds' ratios (this build over the
/// baseline), with the spread of those ratios beside it. Same work on both
/// sides, stdout through a pipe read by this process.
enum CompareBenchmark {
    static func run(ais: String, baseline: String, count: Int, rounds: Int) throws -> [String] {
        guard FileManager.default.isExecutableFile(atPath: baseline) else {
            throw BenchmarkError("compare: --baseline \(baseline) is not an executable (give the path of another build's entitystream)")
        }
        let current = ProcessBenchmarks.binaries.appendingPathComponent("entitystream").path
        var base: [MeasuredProcess.Run] = []
        var this: [MeasuredProcess.Run] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                base.append(try ProcessBenchmarks.replayRun(baseline, ais: ais, count: count))
                this.append(try ProcessBenchmarks.replayRun(current, ais: ais, count: count))
            } else {
                this.append(try ProcessBenchmarks.replayRun(current, ais: ais, count: count))
                base.append(try ProcessBenchmarks.replayRun(baseline, ais: ais, count: count))
            }
        }
        let wallRatios = zip(this, base).map { $0.seconds / $1.seconds }.sorted()
        let cpuRatios = zip(this, base).map { $0.cpuSeconds / $1.cpuSeconds }.sorted()
        func describe(_ runs: [MeasuredProcess.Run]) -> String {
            let side = ProcessBenchmarks.Summary(runs: runs)
            return String(format: "%.3f s wall (%.0f observations/s), %.2f s CPU, peak RSS %.1f MB",
                          side.seconds, Double(count) / side.seconds, side.cpuSeconds, Double(side.peakKiB) / 1024)
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
