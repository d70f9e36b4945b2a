import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamRaster
import Testing
import EntityStreamModel

/// Where GDAL's command-line tools are installed (nil: the tests that need them skip).
private let ogr2ogr = ["/usr/bin/ogr2ogr", "/usr/local/bin/ogr2ogr"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// A directory of the test's own (the test removes it).
private struct ImportDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("gpkg-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    func remove() { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String) -> String { url.appendingPathComponent(name).path }
}

@Suite("Features land in a GeoPackage with GDAL's ogr2ogr (when installed)", .bounded(.io))
struct GeoPackageImportTests {
    /// Points the test makes in Oregon North feet (EPSG:2913) from known NAD83(HARN) longitudes/latitudes with the
    /// Lambert formulas, with a date each; `query --in-sr 2913 --format geojson` imported with the README's plain
    /// `ogr2ogr -f GPKG` gives one feature per row, a DateTime field, EPSG:4326, and each point within 3e-5° (the
    /// 1.3 m datum shift) of the longitude/latitude it was made from; the CSV output does the same with
    /// `-oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y`.
    @Test(.enabled(if: ogr2ogr != nil, "GDAL's ogr2ogr is not installed (apt-get install gdal-bin)"))
    func geoJSONAndCSVImport() async throws {
        let ogr2ogr = try #require(ogr2ogr)
        let directory = try ImportDirectory()
        defer { directory.remove() }
        var rng = SplitMix64(seed: 4326)
        var known: [Int: (longitude: Double, latitude: Double)] = [:]
        var lines = ["seq,when,east,north"]
        for seq in 1...40 {
            let longitude = -122.9 + rng.nextDouble() * 0.5, latitude = 45.3 + rng.nextDouble() * 0.4
            let feet = ProjectionOracles.oregonNorthFeet(longitude: longitude, latitude: latitude)
            known[seq] = (longitude, latitude)
            lines.append("\(seq),2015-03-\(String(format: "%02d", 1 + seq % 28))T12:00:00Z,\(feet.x),\(feet.y)")
        }
        let source = directory.file("incidents.csv")
        try lines.joined(separator: "\n").write(toFile: source, atomically: true, encoding: .utf8)
        for format in ["geojson", "csv"] {
            let output = try await CommandLineTool.run("entitystream", ["query", source, "--columns", "x=east,y=north,time=when", "--in-sr", "2913",
                                                                  "--format", format])
            #expect(output.status == 0, "\(output.standardError)")
            let file = directory.file("q.\(format == "csv" ? "csv" : "geojsonl")")
            try output.standardOutput.write(toFile: file, atomically: true, encoding: .utf8)
            let package = directory.file("\(format).gpkg")
            let options = format == "csv" ? ["-oo", "X_POSSIBLE_NAMES=x", "-oo", "Y_POSSIBLE_NAMES=y", "-oo", "AUTODETECT_TYPE=YES", "-a_srs", "EPSG:4326"] : []
            let imported = try await ProcessRunner.run(ogr2ogr, ["-f", "GPKG", package, file] + options)
            #expect(imported.status == 0, "\(format): \(imported.standardError)")
            let info = try await ProcessRunner.run("/usr/bin/ogrinfo", ["-so", package, "q"])
            #expect(info.standardOutput.contains("Feature Count: 40"), "\(format): \(info.standardOutput)")
            #expect(info.standardOutput.contains("when: DateTime"), "\(format): \(info.standardOutput)")
            #expect(info.standardOutput.contains(#"ID["EPSG",4326]"#), "\(format)")
            let back = try await ProcessRunner.run(ogr2ogr, ["-f", "CSV", "/vsistdout/", package, "-lco", "GEOMETRY=AS_XY", "-select", "seq"])
            let rows = back.standardOutput.split(whereSeparator: \.isNewline).dropFirst().map {
                $0.split(separator: ",").map { String($0).replacingOccurrences(of: "\"", with: "") }
            }
            #expect(rows.count == 40, "\(format): \(back.standardOutput.prefix(300))")
            for row in rows {
                guard row.count >= 3, let x = Double(row[0]), let y = Double(row[1]), let seq = Int(row[2]), let expected = known[seq] else {
                    Issue.record("\(format): row \(row)")
                    continue
                }
                #expect(abs(x - expected.longitude) < 3e-5 && abs(y - expected.latitude) < 3e-5, "\(format) \(seq): \(x), \(y)")
            }
        }
    }

    /// The README's plain `ogr2ogr -f GPKG` of every other command's `--format geojson`: replay (a CSV of tracks the
    /// test writes: one feature per observation, the receive time a DateTime), statistics (one feature per group the
    /// test counts itself), hotspots (one feature per line written) and identify (one feature per point given). Each
    /// import succeeds (GDAL takes a repeated `properties.id` without a Feature `id`, as the job id was, as the feature
    /// id and fails on its UNIQUE constraint),
    /// keeps every line and reports EPSG:4326.
    @Test(.enabled(if: ogr2ogr != nil, "GDAL's ogr2ogr is not installed (apt-get install gdal-bin)"))
    func everyCommandImports() async throws {
        let ogr2ogr = try #require(ogr2ogr)
        let directory = try ImportDirectory()
        defer { directory.remove() }
        let file = directory.file

        var rng = SplitMix64(seed: 2913)
        var tracks = ["bus,at,lon,lat,route"]
        for second in 0..<30 {
            tracks.append("B\(second % 3),2024-05-01T08:00:\(String(format: "%02d", second))Z,\(-122.7 + rng.nextDouble() * 0.1),\(45.5 + rng.nextDouble() * 0.1),\(second % 5)")
        }
        try tracks.joined(separator: "\n").write(toFile: file("tracks.csv"), atomically: true, encoding: .utf8)
        var incidents = ["seq,kind,when,east,north"]
        var perKind: [String: Int] = [:]
        for seq in 1...300 {
            let kind = ["burglary", "theft", "arson"][Int(rng.nextDouble() * 3) % 3]
            perKind[kind, default: 0] += 1
            let feet = ProjectionOracles.oregonNorthFeet(longitude: -122.7 + rng.nextDouble() * 0.1, latitude: 45.5 + rng.nextDouble() * 0.1)
            incidents.append("\(seq),\(kind),2015-03-\(String(format: "%02d", 1 + seq % 28))T12:00:00Z,\(feet.x),\(feet.y)")
        }
        try incidents.joined(separator: "\n").write(toFile: file("incidents.csv"), atomically: true, encoding: .utf8)
        let transform = try #require(GeoTransform([-123, 0.01, 0, 46, 0, -0.01]))
        try GeoTIFFWriter.write(RasterImage(width: 100, height: 100, pixelType: .uint16) { _, column, row in Double(row * 100 + column) },
                                to: file("dem.tif"), options: GeoTIFFWriteOptions(georeferencing: .geoTransform(transform), crs: .geographic(epsg: 4326)))
        let points = (0..<12).map { index in "\(-122.95 + Double(index) * 0.07),\(45.95 - Double(index) * 0.05)" }

        let runs: [(name: String, arguments: [String], expected: Int?, date: String?)] = [
            ("replay", ["replay", file("tracks.csv"), "--columns", "track=bus,time=at,x=lon,y=lat"], 30, "es_received: DateTime"),
            ("statistics", ["statistics", file("incidents.csv"), "--columns", "x=east,y=north,time=when", "--in-sr", "2913",
                            "--stat", "count:*:n", "--stat", "max:when:latest", "--group-by", "kind"], perKind.count, "latest: DateTime"),
            ("hotspots", ["hotspots", file("incidents.csv"), "--columns", "x=east,y=north,time=when", "--in-sr", "2913", "--cell-size", "1500"], nil, nil),
            ("identify", ["identify", file("dem.tif")] + points.flatMap { ["--at", $0] }, points.count, nil),
        ]
        for run in runs {
            let output = try await CommandLineTool.run("entitystream", run.arguments + ["--format", "geojson"])
            #expect(output.status == 0, "\(run.name): \(output.standardError)")
            let lines = output.standardOutput.split(whereSeparator: \.isNewline).count
            #expect(lines > 0, "\(run.name)")
            if let expected = run.expected { #expect(lines == expected, "\(run.name): \(output.standardOutput.prefix(400))") }
            try output.standardOutput.write(toFile: file("\(run.name).geojsonl"), atomically: true, encoding: .utf8)
            let imported = try await ProcessRunner.run(ogr2ogr, ["-f", "GPKG", file("\(run.name).gpkg"), file("\(run.name).geojsonl")])
            #expect(imported.status == 0, "\(run.name): \(imported.standardError)")
            let info = try await ProcessRunner.run("/usr/bin/ogrinfo", ["-so", file("\(run.name).gpkg"), run.name])
            #expect(info.standardOutput.contains("Feature Count: \(lines)"), "\(run.name): \(info.standardOutput)")
            if let date = run.date { #expect(info.standardOutput.contains(date), "\(run.name): \(info.standardOutput)") }
            if run.name != "statistics" { #expect(info.standardOutput.contains(#"ID["EPSG",4326]"#), "\(run.name): \(info.standardOutput)") }
        }
    }
}
