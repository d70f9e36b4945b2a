import EntityStreamCore
import Foundation

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
        guard let data = FileManager.default.contents(atPath: ais) else { throw BenchmarkError("cannot read \(ais)") }
        let lines = data.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var messages: [StreamMessage] = []
        for line in lines.prefix(10) { try decoder.decode(line, receivedAt: 0, into: &messages) }
        var schema = decoder.schema
        schema.trackIDIndex = schema.index(ofField: "MMSI")
        decoder = EsriFeatureDecoder(schema: schema)
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: count))
        var events: [StoreEvent] = []
        let before = residentBytes()
        for index in 0..<count {
            messages.removeAll(keepingCapacity: true)
            try decoder.decode(lines[index % lines.count], receivedAt: Int64(index), into: &messages)
            events.removeAll(keepingCapacity: true)
            if case .observation(let observation)? = messages.first { store.ingest(observation, now: Int64(index), into: &events) }
        }
        let after = residentBytes()
        guard store.observationCount == count else { throw BenchmarkError("store holds \(store.observationCount), expected \(count)") }
        let perObservation = Double(after - before) / Double(count)
        return String(format: "memory: %d AIS observations retained (14 tracks, %d distinct strings): %.1f bytes per observation above the baseline (RSS +%.1f MB)",
                      count, store.internedStringCount, perObservation, Double(after - before) / 1e6)
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
