import EntityStreamAnalyses
import EntityStreamCore
import Foundation
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamModel

/// `entitystream-bench identify`: identify random points inside a tiled COG
/// on a warm cache, in the raster's CRS and in WGS84 (through PROJ), against
/// `gdallocationinfo -valonly` (the same points on stdin) and rasterio's
/// `sample` when installed; identify point by point, and in the identify
/// job's batches (PROJ batches split across the cores). Runs alternate;
/// medians are reported, as points per second of wall time and per
/// CPU-second (the process's CPU time: both threads of a batch counted). Values are
/// checked against gdallocationinfo's for every point, and against
/// rasterio's by their sum. rasterio samples point by point (about 20,000
/// points/s), so it gets the first `rasterioCount` of the same points.
enum IdentifyBenchmark {
    struct Points {
        var xs: [Double]
        var ys: [Double]
        var file: String
    }

    static func run(path: String, count: Int, runs: Int, rasterioCount requestedRasterioCount: Int) throws -> [String] {
        let rasterioCount = max(1, min(requestedRasterioCount, count))
        let raster = try GeoTIFFRaster(path: path)
        let info = raster.info
        guard let transform = info.geoTransform, let epsg = info.crs.epsgCode else { throw BenchmarkError("\(path) is not georeferenced with an EPSG code") }
        var lines: [String] = []
        lines.append("identify: \(URL(fileURLWithPath: path).lastPathComponent), \(info.width)×\(info.height) \(info.pixelType.rawValue), \(info.blockShape), \(info.compression), EPSG:\(epsg); \(count) random points, warm cache, \(runs) alternating runs, medians")

        // Points: uniform inside the raster (its CRS); WGS84 points at random cells' WGS84 centres.
        var generator = SplitMix64(seed: 42)
        func unit() -> Double { Double(generator.next() >> 11) / Double(1 << 53) }
        var native = Points(xs: [], ys: [], file: "")
        var wgs84 = Points(xs: [], ys: [], file: "")
        for _ in 0..<count {
            let point = transform.point(column: unit() * Double(info.width), row: unit() * Double(info.height))
            native.xs.append(point.x)
            native.ys.append(point.y)
            let envelope = try raster.extent(column: Int(unit() * Double(info.width)), row: Int(unit() * Double(info.height)), in: .wgs84)
            wgs84.xs.append((envelope.xmin + envelope.xmax) / 2)
            wgs84.ys.append((envelope.ymin + envelope.ymax) / 2)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("identify-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var prefixFiles: [String] = []
        for (index, points) in [native, wgs84].enumerated() {
            var text = ""
            text.reserveCapacity(points.xs.count * 40)
            var prefix = ""
            for i in points.xs.indices {
                text += "\(points.xs[i]) \(points.ys[i])\n"
                if i + 1 == rasterioCount { prefix = text }
            }
            let file = directory.appendingPathComponent(index == 0 ? "native.txt" : "wgs84.txt").path
            try text.write(toFile: file, atomically: false, encoding: .utf8)
            if index == 0 { native.file = file } else { wgs84.file = file }
            let prefixFile = directory.appendingPathComponent(index == 0 ? "native-prefix.txt" : "wgs84-prefix.txt").path
            try prefix.write(toFile: prefixFile, atomically: false, encoding: .utf8)
            prefixFiles.append(prefixFile)
        }

        // Warm: every tile decoded once.
        for row in stride(from: 0, to: info.height, by: 64) {
            for column in stride(from: 0, to: info.width, by: 64) { _ = try raster.sample(column: column, row: row) }
        }
        let warmDecodes = raster.cacheStatistics.decodedBlocks

        let gdal = ProcessBenchmarks.which("gdallocationinfo")
        let python = ProcessBenchmarks.which("python3")
        let peerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/rasterio-sample.py").path
        let haveRasterio = try python.map { try MeasuredProcess.run($0, ["-c", "import rasterio"], output: .devNull).status == 0 } ?? false
        if gdal == nil { lines.append("identify: gdallocationinfo not found (apt-get install gdal-bin): comparison skipped") }
        if !haveRasterio { lines.append("identify: python3 lacks rasterio (pip install rasterio): comparison skipped") }

        var timings: [String: [Timing]] = [:]
        var rasterioTimings: [String: [Timing]] = [:]
        var ourTotals: [String: Int] = [:]
        /// The calling thread's CPU time in the batches: the other thread's part runs beside it,
        /// so on an otherwise idle machine the wall time is at least this.
        var callerCPU: [String: [Double]] = [:]
        var peerNotes: [String: String] = [:]
        for run in 0..<runs {
            for (label, points, spatialReference, prefixFile) in [("raster CRS", native, SpatialReference?.none, prefixFiles[0]),
                                                                  ("WGS84", wgs84, SpatialReference.wgs84, prefixFiles[1])] {
                // entitystream: sample (values), then identify (values + cell extent).
                var total = 0
                var prefixTotal = 0
                var start = Timing.Start()
                for i in points.xs.indices {
                    if let sample = try raster.sample(x: points.xs[i], y: points.ys[i], in: spatialReference), let value = sample.values[0] {
                        total &+= Int(value)
                    }
                    if i + 1 == rasterioCount { prefixTotal = total }
                }
                timings["entitystream sample, \(label)", default: []].append(start.elapsed())
                ourTotals[label] = total
                var extentSum = 0.0
                start = Timing.Start()
                for i in points.xs.indices {
                    if let cell = try raster.identify(x: points.xs[i], y: points.ys[i], in: spatialReference) { extentSum += cell.extent.xmin }
                }
                timings["entitystream identify (values + extent), one thread, point by point, \(label)", default: []].append(start.elapsed())
                if extentSum == 0 { throw BenchmarkError("no cells identified") }
                // As the identify job asks: batches of IdentifyRasterJob.chunkSize points, each a PROJ batch each way.
                var batchSum = 0.0
                let wall = ContinuousClock.now, cpu = ReprojectBenchmark.processCPU(), caller = Timing.Start()
                var batchStart = 0
                while batchStart < points.xs.count {
                    let end = min(batchStart + 16_384, points.xs.count)
                    for answer in try raster.identify(xs: Array(points.xs[batchStart..<end]), ys: Array(points.ys[batchStart..<end]), in: spatialReference) {
                        if case .success(let cell?) = answer { batchSum += cell.extent.xmin }
                    }
                    batchStart = end
                }
                timings["entitystream identify in batches of 16,384 (values + extent; PROJ and envelopes on \(ProcessInfo.processInfo.activeProcessorCount) threads, cells read on one), \(label)", default: []]
                    .append(Timing(wall: (ContinuousClock.now - wall).seconds, cpu: ReprojectBenchmark.processCPU() - cpu))
                callerCPU[label, default: []].append(caller.elapsed().cpu)
                if batchSum != extentSum { throw BenchmarkError("batched identify differs from point by point (\(label))") }

                if let gdal {
                    let output = directory.appendingPathComponent("gdal.txt").path
                    let timing = try timeWithStdin(gdal, ["-valonly", spatialReference == nil ? "-geoloc" : "-wgs84", path], input: points.file, output: output)
                    timings["gdallocationinfo -valonly \(spatialReference == nil ? "-geoloc" : "-wgs84") (stdin, whole process)", default: []].append(timing)
                    if run == 0 { peerNotes[label] = try compareWithGDAL(output: output, raster: raster, points: points, spatialReference: spatialReference) }
                }
                if haveRasterio, let python {
                    let result = try ProcessBenchmarks.timeCapturing(python, [peerScript, path, prefixFile, spatialReference == nil ? "raster" : "EPSG:4326"])
                    let fields = result.split(separator: " ")
                    guard fields.count == 3, let wall = Double(fields[0]), let cpu = Double(fields[1]), let sum = Int(fields[2]) else {
                        throw BenchmarkError("rasterio peer printed '\(result)'")
                    }
                    rasterioTimings["rasterio sample, \(label) (first \(rasterioCount) of the points; timed inside Python, excluding start-up)", default: []]
                        .append(Timing(wall: wall, cpu: cpu))
                    if run == 0 && sum != prefixTotal { lines.append("identify: rasterio's sum of values \(sum) ≠ ours \(prefixTotal) (\(label))") }
                    if run == 0 && sum == prefixTotal { peerNotes["rasterio " + label] = "rasterio's sum of the first \(rasterioCount) values equals ours (\(sum))" }
                }
            }
        }
        lines.append("identify: warm-up decoded \(warmDecodes) tiles; cache holds \(raster.cacheStatistics.cachedBytes) bytes; decoded during the runs: \(raster.cacheStatistics.decodedBlocks - warmDecodes)")
        for (key, note) in peerNotes.sorted(by: { $0.key < $1.key }) { lines.append("identify: check (\(key)): \(note)") }
        for (label, seconds) in callerCPU.sorted(by: { $0.key < $1.key }) {
            let median = seconds.sorted()[seconds.count / 2]
            lines.append("identify: in batches, \(label): the calling thread's CPU median " + String(format: "%.3f s = ", median)
                         + Int((Double(count) / median).rounded()).formatted(.number.grouping(.automatic))
                         + " points per second of it (the wall time's floor with the other part on another core)")
        }
        for (table, points) in [(timings, count), (rasterioTimings, rasterioCount)] {
            for key in table.keys.sorted() {
                let runs = table[key, default: []]
                guard !runs.isEmpty else { continue }
                let walls = runs.map(\.wall).sorted(), cpus = runs.map(\.cpu).sorted()
                let cpuMedian = cpus[cpus.count / 2]
                lines.append(BenchmarkResult(name: "identify: \(key)", count: points, seconds: walls[walls.count / 2], unit: "points",
                                             extra: "wall s " + walls.map { String(format: "%.3f", $0) }.joined(separator: " ")
                                                 + String(format: "; CPU median %.3f s = ", cpuMedian)
                                                 + Int((Double(points) / cpuMedian).rounded()).formatted(.number.grouping(.automatic)) + " points per CPU-second").line)
            }
        }
        return lines
    }

    /// Runs `executable` with `input` as stdin and stdout to `output`; its
    /// wall time and CPU time (user + system, from the children's rusage).
    static func timeWithStdin(_ executable: String, _ arguments: [String], input: String, output: String) throws -> Timing {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle(forReadingAtPath: input)
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        let start = Timing.Start()
        try process.run()
        process.waitUntilExit()
        return start.elapsedOfChildren()
    }

    /// gdallocationinfo's value for every point against ours.
    static func compareWithGDAL(output: String, raster: GeoTIFFRaster, points: Points, spatialReference: SpatialReference?) throws -> String {
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let values = text.split(separator: "\n", omittingEmptySubsequences: false)
        var agree = 0, differ = 0
        for i in points.xs.indices {
            let ours = try raster.sample(x: points.xs[i], y: points.ys[i], in: spatialReference)?.values[0].map { $0 }
            let theirs = i < values.count ? Double(values[i]) : nil
            if ours == theirs { agree += 1 } else { differ += 1 }
        }
        return "gdallocationinfo \(try gdalVersion()) agrees on \(agree) of \(points.xs.count) values\(differ > 0 ? ", differs on \(differ)" : "")"
    }

    static func gdalVersion() throws -> String {
        guard let gdalinfo = ProcessBenchmarks.which("gdalinfo") else { return "" }
        return try ProcessBenchmarks.timeCapturing(gdalinfo, ["--version"]).split(separator: ",").first.map(String.init) ?? ""
    }
}

/// One run's wall time and CPU time: on a machine shared with other work
/// the CPU time is the steadier figure, so both are reported.
struct Timing {
    var wall: Double
    var cpu: Double

    /// The clocks at the start of a run.
    struct Start {
        let wall = ContinuousClock.now
        let thread = Start.cpu(CLOCK_THREAD_CPUTIME_ID)
        let children = Start.childrenCPU()

        /// Wall time and this thread's CPU time since the start.
        func elapsed() -> Timing {
            Timing(wall: (ContinuousClock.now - wall).seconds, cpu: Start.cpu(CLOCK_THREAD_CPUTIME_ID) - thread)
        }

        /// Wall time and the CPU time of children reaped since the start.
        func elapsedOfChildren() -> Timing {
            Timing(wall: (ContinuousClock.now - wall).seconds, cpu: Start.childrenCPU() - children)
        }

        static func cpu(_ clock: clockid_t) -> Double {
            var time = timespec()
            clock_gettime(clock, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }

        static func childrenCPU() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }
    }
}

extension ProcessBenchmarks {
    /// Runs a program to completion; its stdout, trimmed.
    static func timeCapturing(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
