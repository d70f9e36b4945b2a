import EntityStream
import EntityStreamAnalyses
import EntityStreamCore
import Foundation
import EntityStreamModel

/// `entitystream-bench enrich`: what `--enrich` costs ingestion (target:
/// at most 15% slower), on the AIS recording with the shared world raster
/// (512×256×3 uint8, LZW, band-separate, EPSG:4326).
///
/// 1. Whole process, the figure that matters: `entitystream replay` of the
///    AIS recording cycled to `count` observations (`--max-observations-per-track
///    1000`), stdout through a pipe read and discarded by this process, with
///    and without `--raster world=… --enrich world`; runs alternate; medians
///    of wall time and of the child's CPU time (user + system), and the
///    slowdown of each.
/// 2. In process, single thread, to see where the cost is: the enricher
///    alone (the raster actor sampling 4,096-point batches and the joined
///    values), and formatting the store's events with and without their
///    enrichment.
enum EnrichBenchmark {
    static func run(ais: String, raster: String, count: Int, runs: Int) async throws -> [String] {
        var lines: [String] = []
        let entitystream = ProcessBenchmarks.binaries.appendingPathComponent("entitystream").path
        let base = ["replay", ais, "--track-field", "MMSI", "--loop", "--limit", String(count), "--max-observations-per-track", "1000"]
        let enrich = ["--raster", "world=\(raster)", "--enrich", "world"]
        var plain: [Timing] = [], enriched: [Timing] = []
        var bytes = (plain: 0, enriched: 0)
        for _ in 0..<runs {
            let first = try timeThroughPipe(entitystream, base)
            plain.append(first.timing)
            bytes.plain = first.bytes
            let second = try timeThroughPipe(entitystream, base + enrich)
            enriched.append(second.timing)
            bytes.enriched = second.bytes
        }
        let wall = (plain: median(plain.map(\.wall)), enriched: median(enriched.map(\.wall)))
        let cpu = (plain: median(plain.map(\.cpu)), enriched: median(enriched.map(\.cpu)))
        lines.append("enrich: entitystream replay of the AIS recording cycled to \(count) observations, --max-observations-per-track 1000, "
                     + "stdout through a pipe; \(runs) alternating runs, medians")
        for (label, timings, written) in [("without --enrich", plain, bytes.plain), ("with --raster world=rasterio__world.rgb.tif --enrich world", enriched, bytes.enriched)] {
            lines.append(BenchmarkResult(name: "enrich: replay \(label)", count: count, seconds: median(timings.map(\.wall)), unit: "observations",
                                         extra: "wall s " + timings.map { String(format: "%.3f", $0.wall) }.joined(separator: " ")
                                             + String(format: "; CPU median %.3f s; %.1f MB written", median(timings.map(\.cpu)), Double(written) / 1e6)).line)
        }
        lines.append(String(format: "enrich: slowdown with --enrich: wall %+.1f%%, CPU %+.1f%% (target ≤ 15%%); output %+.1f%% bytes",
                            (wall.enriched / wall.plain - 1) * 100, (cpu.enriched / cpu.plain - 1) * 100,
                            (Double(bytes.enriched) / Double(max(1, bytes.plain)) - 1) * 100))
        lines += try await inProcess(ais: ais, raster: raster, count: count)
        return lines
    }

    /// One run of `entitystream` through a pipe (``MeasuredProcess``): its
    /// wall and CPU time and the bytes it wrote. Fails on a non-zero exit.
    static func timeThroughPipe(_ executable: String, _ arguments: [String]) throws -> (timing: Timing, bytes: Int) {
        let run = try MeasuredProcess.run(executable, arguments)
        guard run.status == 0 else { throw BenchmarkError("\(executable) \(arguments.joined(separator: " ")) exited \(run.status): \(run.standardError)") }
        return (Timing(wall: run.seconds, cpu: run.cpuSeconds), run.outputBytes)
    }

    /// The enricher and the formatter alone, on this thread.
    static func inProcess(ais: String, raster: String, count: Int) async throws -> [String] {
        guard let data = FileManager.default.contents(atPath: ais) else { throw BenchmarkError("cannot read \(ais)") }
        let file = try RecordingFile(bytes: Array(data))
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var messages: [StreamMessage] = []
        var observations: [Observation] = []
        for entry in file.entries {
            messages.removeAll(keepingCapacity: true)
            try decoder.decode(entry.message, receivedAt: 0, into: &messages)
            for case .observation(let observation) in messages { observations.append(observation) }
        }
        let rasters = try SessionRasters.open([("world", raster)])
        guard let enricher = try await rasters.enricher(names: ["world"]) else { throw BenchmarkError("no enricher") }
        let batchSize = 4096
        var batches: [[Point?]] = []
        var index = 0
        while index < count {
            let size = min(batchSize, count - index)
            batches.append((0..<size).map { observations[(index + $0) % observations.count].geometry })
            index += size
        }
        _ = await enricher.enrich(batches[0])   // warm: tiles decoded, cells rendered
        var enrichments: [ObservationEnrichment?] = []
        enrichments.reserveCapacity(count)
        var start = Timing.Start()
        for batch in batches { enrichments += await enricher.enrich(batch).values }
        let enrichTime = start.elapsed()

        var schema = decoder.schema
        schema.trackIDIndex = schema.index(ofField: "MMSI")
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservationsPerTrack: 1000))
        var events: [StreamEvent] = []
        events.reserveCapacity(2 * count)
        for index in 0..<count {
            store.ingest(observations[index % observations.count], now: 0, enrichment: enrichments[index], into: &events)
        }
        var formatter = JSONLinesFormatter(format: .esri, schema: schema)
        var writer = JSONWriter(capacity: 1 << 20)
        var formatted = (plain: 0, enriched: 0)
        var formatTimes: (plain: Timing, enriched: Timing) = (Timing(wall: 0, cpu: 0), Timing(wall: 0, cpu: 0))
        for enrichedPass in [false, true] {
            start = Timing.Start()
            var written = 0
            for var event in events {
                if !enrichedPass { event.enrichment = nil }
                formatter.append(event, to: &writer)
                if writer.count > 1 << 19 {
                    written += writer.count
                    writer.removeAll()
                }
            }
            written += writer.count
            writer.removeAll()
            if enrichedPass { (formatTimes.enriched, formatted.enriched) = (start.elapsed(), written) } else { (formatTimes.plain, formatted.plain) = (start.elapsed(), written) }
        }
        func perObservation(_ timing: Timing) -> String { String(format: "%.0f ns CPU per observation", timing.cpu / Double(count) * 1e9) }
        var pipelineLines: [String] = []
        var pipelineRuns: [String: [Timing]] = [:]
        let variants: [(String, (any ObservationEnricher)?)] = [("without enrichment", nil), ("with --enrich world", enricher)]
        for _ in 0..<5 {
            for (label, variant) in variants {
                pipelineRuns[label, default: []].append(await pipeline(observations: observations, schema: schema, count: count, enricher: variant).timing)
            }
        }
        for (label, _) in variants {
            let runs = pipelineRuns[label, default: []]
            let walls = runs.map(\.wall).sorted(), cpus = runs.map(\.cpu).sorted()
            pipelineLines.append(String(format: "enrich: in process, the pipeline (store → bus → formatter, no I/O) %@: wall median %.3f s, CPU median %.3f s (%.0f ns per observation)",
                                        label, walls[walls.count / 2], cpus[cpus.count / 2], cpus[cpus.count / 2] / Double(count) * 1e9))
        }
        return pipelineLines + [
            "enrich: in process, one thread: the enricher (world raster actor, \(batchSize)-point batches): " + perObservation(enrichTime),
            "enrich: in process, one thread: formatting the store's events (Esri) without enrichment: " + perObservation(formatTimes.plain)
                + String(format: ", %.0f bytes per observation", Double(formatted.plain) / Double(count)),
            "enrich: in process, one thread: formatting the same events with enrichment: " + perObservation(formatTimes.enriched)
                + String(format: ", %.0f bytes per observation", Double(formatted.enriched) / Double(count)),
        ]
    }
}

extension EnrichBenchmark {
    /// The pipeline in this process (store actor → bus → a subscriber that
    /// formats every event as Esri JSON lines, no I/O), fed pre-decoded AIS
    /// observations in 4,096-message batches: wall time and this process's
    /// CPU time, without process start-up or a pipe.
    static func pipeline(observations: [Observation], schema: Schema, count: Int, enricher: (any ObservationEnricher)?) async -> (timing: Timing, bytes: Int) {
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(maximumObservationsPerTrack: 1000))
        await pipeline.store.enrich(with: enricher)
        let subscriber = Subscriber(name: "bench")
        await pipeline.bus.subscribe(subscriber)
        await pipeline.schemaChanged(schema)
        let consumer = Task {
            var formatter = JSONLinesFormatter(format: .esri, schema: schema)
            var writer = JSONWriter(capacity: 1 << 20)
            var bytes = 0
            while let batch = await subscriber.next() {
                for event in batch { formatter.append(event, to: &writer) }
                bytes += writer.count
                writer.removeAll()
            }
            return bytes
        }
        let wall = ContinuousClock.now
        let cpu = processCPU()
        var index = 0
        while index < count {
            let size = min(4096, count - index)
            await pipeline.receive((0..<size).map { .observation(observations[(index + $0) % observations.count]) })
            index += size
        }
        await pipeline.close()
        let bytes = await consumer.value
        return (Timing(wall: (ContinuousClock.now - wall).seconds, cpu: processCPU() - cpu), bytes)
    }

    /// User + system CPU time of this process (all threads).
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
