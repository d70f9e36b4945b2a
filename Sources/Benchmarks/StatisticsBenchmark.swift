import EntityStream
import EntityStreamAnalyses
import EntityStreamCore
import Foundation
import EntityStreamStatistics
import EntityStreamModel

/// `entitystream-bench statistics [--count N] [--runs R] [--no-peers]`: a grouped
/// statistics query over N retained observations (default 1,000,000; 5
/// statistics, 2 group fields, ~100 groups) by our engine and, in the same
/// run, by SQLite in-memory (python3's sqlite3) and DuckDB with `threads=1`
/// (when its Python package imports). Identical data on every side: the
/// table is generated once (seeded), written to a CSV in a temporary
/// folder and loaded by the peers outside the timed region. Runs alternate
/// (ours identity-keyed, ours plain, ours over the live store in one run
/// and in two, SQLite, DuckDB, repeated R times); medians are reported,
/// with ns per row and the ratios. Ours is timed from an empty accumulator
/// to finished records; the peers time only the query (execute + fetch).
///
/// The live-store figures run what the `statistics` control command runs:
/// the same rows ingested into an ``EntityStoreState`` (1,000 tracks,
/// nothing purged, as `QueryBenchmark` fills it), read in place through
/// ``StoreContents/scan(_:_:)`` as identity-keyed stored observations — on
/// one core, and split in two runs merged (``StoreStatisticsJob/aggregate(_:scan:plan:parts:maximumGroups:)``,
/// two cores). Results are checked against SQLite's (and DuckDB's).
enum StatisticsBenchmark {
    static let specs = ["count:speed", "avg:speed", "stddev:speed", "sum:payload", "max:heading"]

    static func run(count: Int, runs: Int, peers withPeers: Bool) async throws -> [String] {
        var lines: [String] = []
        let clock = ContinuousClock()
        let table = StatisticsBenchmarkTable(count: count, seed: 0x5EED_2026)
        let request = try StatisticsRequest(statisticSpecs: specs, groupBy: ["vehicletype", "agency"],
                                            orderBy: ["vehicletype", "agency"])
        let plan = try StatisticsPlan(request, schema: StatisticsBenchmarkTable.schema)

        func ours(plain: Bool) -> (seconds: Double, result: StatisticsResult) {
            let start = clock.now
            var accumulator = plan.makeAccumulator()
            if plain { table.scanPlain(into: &accumulator) } else { table.scan(into: &accumulator) }
            let result = accumulator.finish()
            return ((clock.now - start).seconds, result)
        }

        // The same rows retained in the live store.
        let ingestStart = clock.now
        let store = table.store(tracks: 1_000)
        let ingestSeconds = (clock.now - ingestStart).seconds
        let contents = store.contents
        guard contents.observationCount == count else {
            throw BenchmarkError("the store retains \(contents.observationCount) observations, expected \(count)")
        }
        let storePlan = try StatisticsPlan(request, schema: contents.schema)
        let everything = ObservationScan()
        var liveCPU: [Int: [Double]] = [:]
        func live(parts: Int) async throws -> (seconds: Double, result: StatisticsResult) {
            let cpuStart = processCPUSeconds()
            defer { liveCPU[parts, default: []].append(processCPUSeconds() - cpuStart) }
            let start = clock.now
            let result: StatisticsResult
            if parts == 1 {
                var accumulator = storePlan.makeAccumulator()
                contents.scan(everything) { observation in
                    accumulator.add(observation)
                    return true
                }
                result = accumulator.finish()
            } else {
                result = try await StoreStatisticsJob.aggregate(contents, scan: everything, plan: storePlan, parts: parts).finish()
            }
            return ((clock.now - start).seconds, result)
        }

        // Peers.
        var peers: [StatisticsPeer] = []
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("entitystream-statistics-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        if !withPeers {
            FileHandle.standardError.write(Data("statistics: --no-peers: SQLite and DuckDB not run\n".utf8))
        } else if let python = ProcessBenchmarks.which("python3") {
            let csv = folder.appendingPathComponent("observations.csv").path
            try table.writeCSV(to: csv)
            peers.append(try StatisticsPeer(engine: .sqlite, python: python, csv: csv))
            if try MeasuredProcess.run(python, ["-c", "import duckdb"], output: .devNull).status == 0 {
                peers.append(try StatisticsPeer(engine: .duckdb, python: python, csv: csv))
            } else {
                FileHandle.standardError.write(Data("statistics: python3 has no duckdb module (pip install duckdb): DuckDB comparison skipped\n".utf8))
            }
        } else {
            FileHandle.standardError.write(Data("statistics: python3 not found: SQLite and DuckDB comparisons skipped\n".utf8))
        }

        // One warm-up of each, then alternating runs.
        var last = ours(plain: false).result
        _ = ours(plain: true)
        var lastLive = try await live(parts: 1).result
        var lastSplit = try await live(parts: 2).result
        for peer in peers { _ = try peer.run() }
        var identityTimes: [Double] = [], plainTimes: [Double] = [], liveTimes: [Double] = [], splitTimes: [Double] = []
        var peerTimes = Array(repeating: [Double](), count: peers.count)
        for _ in 0..<max(1, runs) {
            let identity = ours(plain: false)
            identityTimes.append(identity.seconds)
            last = identity.result
            plainTimes.append(ours(plain: true).seconds)
            let single = try await live(parts: 1)
            liveTimes.append(single.seconds)
            lastLive = single.result
            let split = try await live(parts: 2)
            splitTimes.append(split.seconds)
            lastSplit = split.result
            for (index, peer) in peers.enumerated() { peerTimes[index].append(try peer.run()) }
        }

        let groups = last.records.count
        lines.append("statistics: \(count) rows, \(groups) groups (2 group fields), 5 statistics (\(specs.joined(separator: " "))), "
                     + "median of \(max(1, runs)) alternating runs, one core")
        let identityMedian = median(identityTimes)
        let liveMedian = median(liveTimes), splitMedian = median(splitTimes)
        lines.append(figure("ours, identity-keyed rows (store-like packed words)", identityMedian, count))
        lines.append(figure("ours, plain rows (group values hashed)", median(plainTimes), count))
        lines.append(figure("ours, live store (1,000 tracks; StoreContents.scan, one core)", liveMedian, count)
                     + String(format: " (store filled in %.1f s, untimed)", ingestSeconds))
        lines.append(figure("ours, live store split in 2 runs merged (2 cores, what the control command does)", splitMedian, count)
                     + String(format: "; %.2f× the one-run speed", liveMedian / splitMedian))
        lines.append(String(format: "statistics: live store CPU time (process user + system, median): one run %.1f ms, two runs merged %.1f ms "
                            + "(the split adds %.1f%% work; it shortens the wall time only when a second core is free)",
                            median(liveCPU[1] ?? []) * 1000, median(liveCPU[2] ?? []) * 1000,
                            (median(liveCPU[2] ?? []) / max(1e-9, median(liveCPU[1] ?? [])) - 1) * 100))
        lines.append("statistics: live store vs in-memory rows: \(try agreement(lastLive, rows(of: last), name: "the in-memory rows"))")
        lines.append("statistics: live store split vs in-memory rows: \(try agreement(lastSplit, rows(of: last), name: "the in-memory rows"))")
        for (index, peer) in peers.enumerated() {
            let seconds = median(peerTimes[index])
            let name = peer.engine == .sqlite
                ? "SQLite \(peer.version) in-memory (python3 sqlite3; STDDEV as the sum-of-squares form)"
                : "DuckDB \(peer.version) in-memory, threads=1 (python3 duckdb; STDDEV_SAMP)"
            lines.append(figure(name, seconds, count) + String(format: "; ours is %.2f× its speed in memory, %.2f× over the live store on one core (load %.1f s, untimed)",
                                                               seconds / identityMedian, seconds / liveMedian, peer.loadSeconds))
            let rows = try peer.result()
            let peerName = peer.engine == .sqlite ? "SQLite" : "DuckDB"
            lines.append("statistics: \(try agreement(last, rows, name: peerName))")
            lines.append("statistics: live store, one run: \(try agreement(lastLive, rows, name: peerName))")
            lines.append("statistics: live store, two runs merged: \(try agreement(lastSplit, rows, name: peerName))")
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        lines.append("statistics: max resident set \(usage.ru_maxrss / 1024) MiB (table of \(count) rows × 5 packed words = "
                     + "\(count * 40 / 1_048_576) MiB, the live store holding the same rows, plus the CSV text while it was written)")
        return lines
    }

    /// User + system CPU seconds of the whole process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func figure(_ name: String, _ seconds: Double, _ count: Int) -> String {
        String(format: "statistics: %@: %.1f ms, %.1f ns/row", name, seconds * 1000, seconds * 1e9 / Double(count))
    }

    /// Checks our records against a peer's rows: group values and counts
    /// exactly, averages, sums and deviations to 1e-9 relative, maxima exactly.
    static func agreement(_ ours: StatisticsResult, _ rows: [[Any]], name: String) throws -> String {
        guard ours.records.count == rows.count else {
            throw BenchmarkError("\(name): \(rows.count) groups, ours \(ours.records.count)")
        }
        var worst = 0.0
        for (record, row) in zip(ours.records, rows) {
            guard row.count == 7 else { throw BenchmarkError("\(name): a row of \(row.count) columns") }
            let values = record.group.map(\.value) + record.statistics.map(\.value)
            for (column, (mine, theirs)) in zip(values, row).enumerated() {
                switch (mine, theirs) {
                case (.null, is NSNull): continue
                case (.string(let a), let b as String) where a == b: continue
                case (.int(let a), let b as NSNumber) where a == b.int64Value: continue
                case (.double(let a), let b as NSNumber):
                    let difference = abs(a - b.doubleValue) / max(abs(a), abs(b.doubleValue), 1e-300)
                    worst = max(worst, difference)
                    if difference <= 1e-9 { continue }
                default: break
                }
                throw BenchmarkError("\(name) disagrees in column \(column) of group \(record.group): ours \(mine), theirs \(theirs)")
            }
        }
        return String(format: "results agree with %@ (%d groups; largest relative difference %.1e)", name, rows.count, worst)
    }

    /// `result`'s records as a peer's rows (group values, then statistics).
    static func rows(of result: StatisticsResult) -> [[Any]] {
        result.records.map { record in
            (record.group + record.statistics).map { item -> Any in
                switch item.value {
                case .string(let text): return text
                case .int(let number): return NSNumber(value: number)
                case .double(let number): return NSNumber(value: number)
                default: return NSNull()
                }
            }
        }
    }
}
