import Foundation

/// `make soak`: long runs whose memory must stay flat once the entity store
/// is full, on loopback only. Each run is a real `entitystream` process with
/// `--duration` (so it ends by itself), stdout read through a pipe, its RSS
/// sampled every half second: the demo with 20,000 vehicles at 5 reports a
/// second each (its store fills its 100,000 observations within seconds),
/// and a looped replay of 20,000 tracks. After the first third of the run
/// (the store full, the queues at their working size), the median RSS of
/// the last third may exceed that of the middle third by at most 8 MB or
/// 5 %, whichever is larger; more is growth, and the run fails.
enum SoakBenchmark {
    struct Result {
        var line: String
        var passed: Bool
    }

    static func run(seconds: Int) throws -> [Result] {
        let seconds = max(seconds, 9)
        let entitystream = ProcessBenchmarks.binaries.appendingPathComponent("entitystream").path
        var results: [Result] = []
        results.append(try soak("demo --vehicles 20000 --rate 5", entitystream,
                                ["demo", "--vehicles", "20000", "--rate", "5", "--events", "observation", "--duration", String(seconds)],
                                seconds: seconds))
        let path = try writeTracks(20_000, perTrack: 3)
        defer { try? FileManager.default.removeItem(atPath: path) }
        results.append(try soak("replay --loop of 20,000 tracks", entitystream,
                                ["replay", path, "--track-field", "id", "--loop", "--events", "observation", "--duration", String(seconds)],
                                seconds: seconds))
        return results
    }

    /// One run: its RSS over time and the verdict.
    private static func soak(_ name: String, _ executable: String, _ arguments: [String], seconds: Int) throws -> Result {
        let series = ResidentSeries()
        let run = try MeasuredProcess.run(executable, arguments, series: series)
        guard run.status == 0 else { throw BenchmarkError("soak \(name): exit status \(run.status): \(run.standardError)") }
        let samples = series.samples
        let third = Double(seconds) / 3
        let middle = samples.filter { $0.seconds >= third && $0.seconds < 2 * third }.map { Double($0.kib) / 1024 }
        let last = samples.filter { $0.seconds >= 2 * third }.map { Double($0.kib) / 1024 }
        guard middle.count >= 3, last.count >= 3 else { throw BenchmarkError("soak \(name): too few RSS samples (\(samples.count))") }
        let before = median(middle), after = median(last)
        let allowed = max(8, before * 0.05)
        let passed = after - before <= allowed
        let peak = Double(samples.map(\.kib).max() ?? 0) / 1024
        let line = String(format: "soak: %@, %d s, %.0f lines/s: RSS median %.1f MB in the middle third, %.1f MB in the last (%+.1f MB, at most +%.1f allowed), peak %.1f MB: %@",
                          name, seconds, Double(run.outputLines) / run.seconds, before, after, after - before, allowed, peak,
                          passed ? "flat" : "GREW")
        return Result(line: line, passed: passed)
    }

    /// Esri feature lines of `tracks` tracks, `perTrack` positions each, round robin.
    private static func writeTracks(_ tracks: Int, perTrack: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("entitystream-soak-\(UUID().uuidString).json").path
        var text = ""
        text.reserveCapacity(tracks * perTrack * 160)
        for round in 0..<perTrack {
            for track in 0..<tracks {
                let x = -112 + Double(track % 1000) / 1000, y = 40 + Double(track / 1000) / 100 + Double(round) / 10_000
                text += #"{"geometry":{"x":\#(x),"y":\#(y),"spatialReference":{"wkid":4326}},"attributes":{"id":"V\#(track)","speed":\#(Double(round) + 0.5),"heading":90,"name":"vessel \#(track)"}}"#
                text += "\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
