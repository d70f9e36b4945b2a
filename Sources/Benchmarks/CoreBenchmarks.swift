import EntityStreamCore
import Foundation
import EntityStreamModel

/// In-process benchmarks of the JSON reader and of the store's memory.
enum CoreBenchmarks {
    /// The reader on every AIS line: validation, decoding into observations,
    /// and Foundation's JSONSerialization for comparison. Best of 5 passes.
    static func json(ais: String) throws -> [BenchmarkResult] {
        guard let data = FileManager.default.contents(atPath: ais) else { throw BenchmarkError("cannot read \(ais)") }
        let lines = data.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        let bytes = lines.reduce(0) { $0 + $1.count }
        let clock = ContinuousClock()
        func best(_ body: () throws -> Void) rethrows -> Double {
            var best = Double.infinity
            for _ in 0..<5 {
                let start = clock.now
                try body()
                best = min(best, (clock.now - start).seconds)
            }
            return best
        }
        let validate = try best {
            for line in lines { try line.withUnsafeBytes { try JSONParser.validate($0) } }
        }
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var messages: [StreamMessage] = []
        messages.reserveCapacity(4)
        let decode = try best {
            for line in lines {
                messages.removeAll(keepingCapacity: true)
                try decoder.decode(line, receivedAt: 0, into: &messages)
            }
        }
        let foundation = try best {
            for line in lines { _ = try JSONSerialization.jsonObject(with: Data(line)) }
        }
        func result(_ name: String, _ seconds: Double) -> BenchmarkResult {
            BenchmarkResult(name: name, count: lines.count, seconds: seconds, unit: "features",
                            extra: String(format: "%.0f MB/s", Double(bytes) / seconds / 1e6))
        }
        return [result("JSON: validate AIS lines", validate),
                result("JSON: decode AIS lines into observations (EsriFeatureDecoder)", decode),
                result("JSON: Foundation JSONSerialization on the same lines", foundation)]
    }

    /// Bytes per retained observation: RSS growth while the store holds
    /// `count` AIS observations (decoded one by one, then dropped).
    static func memory(ais: String, count: Int) throws -> String {
        try memoryPerObservation(ais: ais, count: count).line
    }

    /// The 14-track figure: the line, and the bytes per observation.
    static func memoryPerObservation(ais: String, count: Int) throws -> (line: String, perObservation: Double) {
        let (store, bytes) = try retain(ais: ais, count: count, trackIDs: nil)
        guard store.observationCount == count else { throw BenchmarkError("store holds \(store.observationCount), expected \(count)") }
        let perObservation = Double(bytes) / Double(count)
        return (String(format: "memory: %d AIS observations retained (14 tracks, %d distinct strings): %.1f bytes per observation above the baseline (RSS +%.1f MB; the store counts %.1f bytes per observation)",
                       count, store.internedStringCount, perObservation, Double(bytes) / 1e6, Double(store.storeBytes) / Double(count)), perObservation)
    }

    /// The store's memory with many tracks: RSS growth while it holds
    /// `perTrack` AIS observations of each of `tracks` tracks (the AIS lines
    /// with their MMSI replaced by one of `tracks` ids, round robin, under a
    /// cap of tracks × perTrack). The child process `memory-tracks` measures
    /// one shape; each shape runs in a fresh process, so no earlier shape's
    /// freed heap hides in the figure. Bytes per entity are what is left
    /// once `perObservation` (the 14-track figure) is taken for each observation.
    static func memoryByTracks(executable: String, perObservation: Double) throws -> [String] {
        var lines: [String] = []
        for (tracks, perTrack) in [(20_000, 1), (20_000, 5), (200_000, 1), (200_000, 5)] {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: executable)
            child.arguments = ["memory-tracks", "--tracks", String(tracks), "--per-track", String(perTrack)]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            let fields = answer.split(separator: " ")
            guard child.terminationStatus == 0, fields.count == 3, let bytes = Double(fields[0]), let storeBytes = Double(fields[1]) else {
                throw BenchmarkError("memory-tracks failed: \(answer)")
            }
            let observations = Double(tracks * perTrack)
            let perEntity = (bytes - perObservation * observations) / Double(tracks)
            lines.append(String(format: "memory: %d tracks × %d observations: RSS +%.1f MB, %.0f bytes per observation, so %.0f bytes per entity beside %.1f per observation (the store's own count, --max-store-bytes': %.1f MB)",
                                tracks, perTrack, bytes / 1e6, bytes / observations, perEntity, perObservation, storeBytes / 1e6))
        }
        return lines
    }

    /// The child of ``memoryByTracks(executable:perObservation:)``: prints the
    /// RSS growth in bytes, the store's own byte count, and the observations held.
    static func memoryTracksChild(ais: String, tracks: Int, perTrack: Int) throws -> String {
        let count = tracks * perTrack
        let (store, bytes) = try retain(ais: ais, count: count, trackIDs: (0..<tracks).map { "3\(String(format: "%08d", $0))" })
        guard store.observationCount == count, store.entityCount == tracks else {
            throw BenchmarkError("store holds \(store.observationCount) observations of \(store.entityCount) tracks, expected \(count) of \(tracks)")
        }
        return "\(bytes) \(store.storeBytes) \(count)"
    }

    /// A store holding `count` AIS observations (the lines cycled; with
    /// `trackIDs`, each line's MMSI replaced by one of them, round robin) and
    /// the RSS it added, the lines themselves read before.
    private static func retain(ais: String, count: Int, trackIDs: [String]?) throws -> (store: EntityStoreState, bytes: Int) {
        let (lines, schema, trackIndex) = try aisLines(ais)
        var decoder = EsriFeatureDecoder(schema: schema)
        var messages: [StreamMessage] = []
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: count))
        var events: [StoreEvent] = []
        let before = residentBytes()
        for index in 0..<count {
            messages.removeAll(keepingCapacity: true)
            try decoder.decode(lines[index % lines.count], receivedAt: Int64(index), into: &messages)
            events.removeAll(keepingCapacity: true)
            guard case .observation(let decoded)? = messages.first else { continue }
            if let trackIDs {
                var attributes = decoded.attributes
                attributes[trackIndex] = .string(trackIDs[index % trackIDs.count])
                store.ingest(Observation(geometry: decoded.geometry, attributes: attributes, receivedAt: decoded.receivedAt), now: Int64(index), into: &events)
            } else {
                store.ingest(decoded, now: Int64(index), into: &events)
            }
        }
        messages = []
        return (store, residentBytes() - before)
    }

    /// The AIS recording's lines and its schema (learned from its first lines), keyed by `MMSI`.
    private static func aisLines(_ ais: String) throws -> (lines: [[UInt8]], schema: Schema, trackIndex: Int) {
        guard let data = FileManager.default.contents(atPath: ais) else { throw BenchmarkError("cannot read \(ais)") }
        let lines = data.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var messages: [StreamMessage] = []
        for line in lines.prefix(10) { try decoder.decode(line, receivedAt: 0, into: &messages) }
        var schema = decoder.schema
        guard let trackIndex = schema.index(ofField: "MMSI") else { throw BenchmarkError("no MMSI field in \(ais)") }
        schema.trackIDIndex = trackIndex
        return (lines, schema, trackIndex)
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
