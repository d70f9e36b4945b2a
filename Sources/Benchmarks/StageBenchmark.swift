import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamModel

/// Single-threaded cost of each pipeline stage on the AIS lines, to see
/// where time goes (decode, store, format) without concurrency effects.
enum StageBenchmark {
    static func run(path: String, count: Int) throws -> [BenchmarkResult] {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchmarkError("cannot read \(path)") }
        let file = try RecordingFile(bytes: Array(data))
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var messages: [StreamMessage] = []
        let clock = ContinuousClock()
        var results: [BenchmarkResult] = []

        // Decode only.
        var start = clock.now
        for index in 0..<count {
            messages.removeAll(keepingCapacity: true)
            try decoder.decode(file.entries[index % file.entries.count].message, receivedAt: 0, into: &messages)
        }
        results.append(BenchmarkResult(name: "stage: decode", count: count, seconds: (clock.now - start).seconds, unit: "observations"))

        // Decode + store.
        var schema = decoder.schema
        schema.trackIDIndex = schema.index(ofField: "MMSI")
        decoder = EsriFeatureDecoder(schema: schema)
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservationsPerTrack: 1000))
        var storeEvents: [StoreEvent] = []
        var events: [StreamEvent] = []
        start = clock.now
        for index in 0..<count {
            messages.removeAll(keepingCapacity: true)
            try decoder.decode(file.entries[index % file.entries.count].message, receivedAt: 0, into: &messages)
            for case .observation(let observation) in messages {
                storeEvents.removeAll(keepingCapacity: true)
                store.ingest(observation, now: 0, into: &storeEvents)
                for event in storeEvents { events.append(StreamEvent(time: 0, payload: .store(event))) }
            }
            if events.count > 4096 { events.removeAll(keepingCapacity: true) }
        }
        results.append(BenchmarkResult(name: "stage: decode + store", count: count, seconds: (clock.now - start).seconds, unit: "observations"))

        // Store only (observations decoded beforehand).
        var decodedObservations: [Observation] = []
        for entry in file.entries {
            messages.removeAll(keepingCapacity: true)
            try decoder.decode(entry.message, receivedAt: 0, into: &messages)
            for case .observation(let observation) in messages { decodedObservations.append(observation) }
        }
        store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservationsPerTrack: 1000))
        start = clock.now
        for index in 0..<count {
            storeEvents.removeAll(keepingCapacity: true)
            store.ingest(decodedObservations[index % decodedObservations.count], now: 0, into: &storeEvents)
        }
        results.append(BenchmarkResult(name: "stage: store only", count: count, seconds: (clock.now - start).seconds, unit: "observations"))

        // Decode + store + format.
        store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservationsPerTrack: 1000))
        var formatter = JSONLinesFormatter(format: .esri, schema: schema)
        var writer = JSONWriter(capacity: 1 << 20)
        events.removeAll()
        start = clock.now
        for index in 0..<count {
            messages.removeAll(keepingCapacity: true)
            try decoder.decode(file.entries[index % file.entries.count].message, receivedAt: 0, into: &messages)
            for case .observation(let observation) in messages {
                storeEvents.removeAll(keepingCapacity: true)
                store.ingest(observation, now: 0, into: &storeEvents)
                for event in storeEvents { events.append(StreamEvent(time: 0, payload: .store(event))) }
            }
            if events.count > 4096 {
                for event in events { formatter.append(event, to: &writer) }
                writer.removeAll()
                events.removeAll(keepingCapacity: true)
            }
        }
        results.append(BenchmarkResult(name: "stage: decode + store + format", count: count, seconds: (clock.now - start).seconds, unit: "observations"))
        return results
    }
}
