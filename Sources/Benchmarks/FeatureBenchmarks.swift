import EntityStreamCore
import Foundation
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// The feature-layer model: loading a CSV into a ``FeatureTable`` (what
/// `stream-simulator --layer` and the statistics/hot-spot commands do), the
/// table's memory, and the query engine's scans. Synthetic data made here
/// (storm-like points, one per minute), so it runs without the shared data.
enum FeatureBenchmarks {
    static func run(count: Int) throws -> [String] {
        let csv = synthesize(count)
        let clock = ContinuousClock()
        func best<T>(_ runs: Int = 3, _ body: () throws -> T) rethrows -> (T, Double) {
            var fastest = Double.infinity
            var last: T?
            for _ in 0..<runs {
                let start = clock.now
                last = try body()
                fastest = min(fastest, (clock.now - start).seconds)
            }
            return (last!, fastest)
        }
        var lines: [String] = []

        let before = CoreBenchmarks.residentBytes()
        let table = try FeatureFile.load(bytes: csv, fileName: "storms.csv")
        let retained = CoreBenchmarks.residentBytes() - before
        guard table.count == count else { throw BenchmarkError("loaded \(table.count) rows, expected \(count)") }
        let (_, loadSeconds) = try best { try FeatureFile.load(bytes: csv, fileName: "storms.csv").count }
        lines.append(BenchmarkResult(name: "features: load a \(count)-row CSV into a FeatureTable (two passes, 8 columns, types inferred)",
                                     count: count, seconds: loadSeconds, unit: "rows",
                                     extra: String(format: "%.0f MB/s; about %.0f bytes per row held (RSS +%.1f MB, CSV %.1f MB)",
                                                   Double(csv.count) / loadSeconds / 1e6, Double(retained) / Double(count),
                                                   Double(retained) / 1e6, Double(csv.count) / 1e6)).line)

        let engine = FeatureQueryEngine(maxRecordCount: 2000)
        let day = try TimeExtent(start: start + 3 * 86_400_000, end: start + 4 * 86_400_000)
        var scan = FeatureQuery(whereClause: "wind > 60 AND status = 'HU'", time: day)
        scan.returnCountOnly = true
        let expected = (0..<count).filter { row in
            let minute = Int64(row)
            return minute * 60_000 >= 3 * 86_400_000 && minute * 60_000 <= 4 * 86_400_000 && row % 140 > 60 && row % 3 == 0
        }.count
        let (counted, scanSeconds) = try best(5) { try engine.run(scan, on: table) }
        guard case .count(let matches) = counted, matches == expected else { throw BenchmarkError("the scan counted \(counted), expected \(expected)") }
        lines.append(BenchmarkResult(name: "features: where + time count over every row (FeatureQueryEngine, returnCountOnly)",
                                     count: count, seconds: scanSeconds, unit: "rows", extra: "\(matches) match").line)

        let page = FeatureQuery(time: day, outFields: nil, resultRecordCount: 2000)
        let (paged, pageSeconds) = try best(5) { FeatureSetWriter.write(try engine.run(page, on: table), format: .json) }
        lines.append(BenchmarkResult(name: "features: a time-extent query answered as an f=json page of 2000 (select, order, write)",
                                     count: count, seconds: pageSeconds, unit: "rows scanned",
                                     extra: String(format: "%.1f ms per page, %d bytes", pageSeconds * 1000, paged.count)).line)
        return lines
    }

    /// 2000-08-01T00:00Z.
    static let start: Int64 = 965_088_000_000

    /// `count` rows: id, name, ISO time one minute apart, status, lat, lon, wind, pressure.
    static func synthesize(_ count: Int) -> [UInt8] {
        var text = "storm_id,name,datetime_utc,status,lat,lon,wind,pressure\n"
        text.reserveCapacity(count * 72)
        var writer = JSONWriter(capacity: 32)
        for row in 0..<count {
            writer.removeAll()
            writer.appendISO8601(milliseconds: start + Int64(row) * 60_000)
            let time = String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
            let storm = row / 500
            text += "AL\(storm % 100)2000,STORM\(storm),\(time),\(row % 3 == 0 ? "HU" : "TS"),\(Double(row % 600) / 10),\(-Double(row % 900) / 10),\(row % 140),\(900 + row % 100)\n"
        }
        return Array(text.utf8)
    }
}
