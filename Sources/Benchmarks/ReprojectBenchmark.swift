import EntityStreamCore
import Foundation
import EntityStreamProjection
import EntityStreamModel

/// `entitystream-bench reproject`: points transformed between spatial
/// references through PROJ, EPSG:2913 → EPSG:4326 (the Portland incidents'
/// State Plane feet to WGS84) and EPSG:4326 → EPSG:3857, `count` points
/// each, against pyproj's vectorised `Transformer.transform` and GDAL's
/// `gdaltransform` when installed, in alternating runs, medians reported.
///
/// Ours: one batch through one ``CoordinateOperation`` (one core), and the
/// same batch through ``CoordinateOperations`` (split across the cores).
/// pyproj times its own transform of numpy arrays, made before timing as our
/// pool makes operations once; gdaltransform reads text on stdin and writes
/// text, so its figure is the whole process. Every result is compared with
/// ours: pyproj's for every point, gdaltransform's for the first 1,000.
enum ReprojectBenchmark {
    static func run(count: Int, runs: Int, peers: Bool) throws -> [String] {
        var lines = ["reproject: \(count) points per pair, \(runs) alternating runs, medians; wall time (CPU time)"]
        let python = peers ? ProcessBenchmarks.which("python3") : nil
        let havePyproj = try python.map { try MeasuredProcess.run($0, ["-c", "import pyproj, numpy"], output: .devNull).status == 0 } ?? false
        let pyprojVersion = havePyproj ? (try? ProcessBenchmarks.timeCapturing(python!, ["-c", "import pyproj; print(pyproj.__version__, pyproj.proj_version_str)"])) ?? "?" : ""
        let gdal = peers ? ProcessBenchmarks.which("gdaltransform") : nil
        if peers && !havePyproj { lines.append("reproject: python3 lacks pyproj or numpy (pip install pyproj): comparison skipped") }
        if peers && gdal == nil { lines.append("reproject: gdaltransform not found (apt-get install gdal-bin): comparison skipped") }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/pyproj-transform.py").path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reproject-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let oregonNorth = SpatialReference(wkid: 2913)
        for (source, target) in [(oregonNorth, SpatialReference.wgs84), (SpatialReference.wgs84, SpatialReference.webMercator)] {
            let (xs, ys) = try points(in: source, count: count)
            let name = "\(source.label) → \(target.label)"
            let pointsFile = directory.appendingPathComponent("points.bin").path
            try write(xs, ys, to: pointsFile)
            let textFile = directory.appendingPathComponent("points.txt").path
            try text(xs, ys, count: xs.count).write(toFile: textFile, atomically: false, encoding: .utf8)

            var single: [Timing] = [], parallel: [Timing] = [], pyproj: [Timing] = [], gdalRuns: [Timing] = []
            var ours: (x: [Double], y: [Double]) = ([], [])
            var pyprojDifference = 0.0
            var callerCPU: [Double] = []
            let operation = try CoordinateOperation(from: source, to: target)
            for _ in 0..<runs {
                var x = xs, y = ys
                let start = Timing.Start()
                let failed = operation.transform(x: &x, y: &y)
                single.append(start.elapsed())
                guard failed == 0 else { throw BenchmarkError("\(failed) points of \(name) could not be transformed") }
                ours = (x, y)

                var px = xs, py = ys
                let wall = ContinuousClock.now, cpu = processCPU(), caller = Timing.Start()
                try CoordinateOperations.transform(x: &px, y: &py, from: source, to: target)
                parallel.append(Timing(wall: (ContinuousClock.now - wall).seconds, cpu: processCPU() - cpu))
                callerCPU.append(caller.elapsed().cpu)
                guard px == x, py == y else { throw BenchmarkError("the parallel transform of \(name) differs from the serial one") }

                if havePyproj, let python {
                    let output = directory.appendingPathComponent("pyproj.bin").path
                    let line = try ProcessBenchmarks.timeCapturing(python, [script, pointsFile, source.label, target.label, output])
                    let parts = line.split(separator: " ").compactMap { Double($0) }
                    guard parts.count == 3 else { throw BenchmarkError("pyproj peer said '\(line)'") }
                    pyproj.append(Timing(wall: parts[0], cpu: parts[1]))
                    let (peerX, peerY) = try read(output, count: xs.count)
                    for index in xs.indices {
                        pyprojDifference = max(pyprojDifference, abs(peerX[index] - x[index]), abs(peerY[index] - y[index]))
                    }
                }
                if let gdal {
                    let start = Timing.Start()
                    let run = try MeasuredProcess.run("/bin/sh", ["-c", "\"$0\" -s_srs \"$1\" -t_srs \"$2\" -output_xy < \"$3\" > /dev/null",
                                                                  gdal, source.label, target.label, textFile], output: .devNull)
                    guard run.status == 0 else { throw BenchmarkError("gdaltransform failed: \(run.standardError)") }
                    gdalRuns.append(Timing(wall: start.elapsedOfChildren().wall, cpu: run.cpuSeconds))
                }
            }
            var line = "reproject \(name): entitystream one core \(figure(single, count))"
            line += "; all \(ProcessInfo.processInfo.activeProcessorCount) cores \(figure(parallel, count))"
            line += String(format: " (the calling thread's CPU %.1f ms: the wall time's floor)", median(callerCPU) * 1000)
            if !pyproj.isEmpty {
                line += "; pyproj \(pyprojVersion) vectorised \(figure(pyproj, count)), largest difference \(String(format: "%.3g", pyprojDifference))"
            }
            if let gdal, !gdalRuns.isEmpty {
                line += "; gdaltransform (whole process, text) \(figure(gdalRuns, count)), largest difference on 1,000 points "
                line += String(format: "%.3g", try gdalDifference(gdal, source: source, target: target, xs: xs, ys: ys, ours: ours, directory: directory))
            }
            lines.append(line)
        }
        return lines
    }

    /// Random points spread over the reference's area: Oregon North's zone
    /// (made in WGS84 and projected), or the world within ±85° for WGS84.
    static func points(in reference: SpatialReference, count: Int) throws -> ([Double], [Double]) {
        var generator = SplitMix64(seed: 2913)
        var xs = [Double](), ys = [Double]()
        xs.reserveCapacity(count)
        ys.reserveCapacity(count)
        let oregon = reference.code == 2913
        for _ in 0..<count {
            xs.append(oregon ? -124 + generator.nextDouble() * 7 : -180 + generator.nextDouble() * 360)
            ys.append(oregon ? 44 + generator.nextDouble() * 2.3 : -85 + generator.nextDouble() * 170)
        }
        if oregon { try CoordinateOperations.transform(x: &xs, y: &ys, from: .wgs84, to: reference) }
        return (xs, ys)
    }

    static func figure(_ timings: [Timing], _ count: Int) -> String {
        let wall = median(timings.map(\.wall)), cpu = median(timings.map(\.cpu))
        return String(format: "%.1f ms (%.1f ms CPU) = %.2f M points/s", wall * 1000, cpu * 1000, Double(count) / wall / 1e6)
    }

    static func processCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func write(_ xs: [Double], _ ys: [Double], to path: String) throws {
        let data = (xs + ys).withUnsafeBytes { Data($0) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String, count: Int) throws -> ([Double], [Double]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count == count * 16 else { throw BenchmarkError("\(path) holds \(data.count) bytes, expected \(count * 16)") }
        let values = data.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        return (Array(values[..<count]), Array(values[count...]))
    }

    static func text(_ xs: [Double], _ ys: [Double], count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 40)
        for index in 0..<count { text += "\(xs[index]) \(ys[index])\n" }
        return text
    }

    /// The largest coordinate difference between gdaltransform and us on the first 1,000 points.
    static func gdalDifference(_ gdal: String, source: SpatialReference, target: SpatialReference, xs: [Double], ys: [Double],
                               ours: (x: [Double], y: [Double]), directory: URL) throws -> Double {
        let sample = min(1000, xs.count)
        let file = directory.appendingPathComponent("sample.txt").path
        try text(xs, ys, count: sample).write(toFile: file, atomically: false, encoding: .utf8)
        let output = try ProcessBenchmarks.timeCapturing("/bin/sh", ["-c", "\"$0\" -s_srs \"$1\" -t_srs \"$2\" -output_xy < \"$3\"",
                                                                      gdal, source.label, target.label, file])
        var largest = 0.0
        for (index, line) in output.split(separator: "\n").prefix(sample).enumerated() {
            let numbers = line.split(separator: " ").compactMap { Double($0) }
            guard numbers.count >= 2 else { throw BenchmarkError("gdaltransform wrote '\(line)'") }
            largest = max(largest, abs(numbers[0] - ours.x[index]), abs(numbers[1] - ours.y[index]))
        }
        return largest
    }
}
