import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing

/// Where GDAL's command-line tools are installed (nil: the tests that need them skip).
private let ogr2ogr = ["/usr/bin/ogr2ogr", "/usr/local/bin/ogr2ogr"].first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("Features land in a GeoPackage with GDAL's ogr2ogr (when installed)", .bounded(.io))
struct GeoPackageImportTests {
    /// Points the test makes in Oregon North feet (EPSG:2913) from known NAD83(HARN) longitudes/latitudes with the
    /// Lambert formulas, with a date each; `query --in-sr 2913 --format geojson` imported with the README's plain
    /// `ogr2ogr -f GPKG` gives one feature per row, a DateTime field, EPSG:4326, and each point within 3e-5° (the
    /// 1.3 m datum shift) of the longitude/latitude it was made from; the CSV output does the same with
    /// `-oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y`.
    @Test(.enabled(if: ogr2ogr != nil, "GDAL's ogr2ogr is not installed (apt-get install gdal-bin)"))
    func geoJSONAndCSVImport() throws {
        let ogr2ogr = try #require(ogr2ogr)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var rng = SplitMix64(seed: 4326)
        var known: [Int: (longitude: Double, latitude: Double)] = [:]
        var lines = ["seq,when,east,north"]
        for seq in 1...40 {
            let longitude = -122.9 + rng.nextDouble() * 0.5, latitude = 45.3 + rng.nextDouble() * 0.4
            let feet = ProjectionOracles.oregonNorthFeet(longitude: longitude, latitude: latitude)
            known[seq] = (longitude, latitude)
            lines.append("\(seq),2015-03-\(String(format: "%02d", 1 + seq % 28))T12:00:00Z,\(feet.x),\(feet.y)")
        }
        let source = directory.appendingPathComponent("incidents.csv").path
        try lines.joined(separator: "\n").write(toFile: source, atomically: true, encoding: .utf8)
        for format in ["geojson", "csv"] {
            let output = try CommandLineTool.run("entitystream", ["query", source, "--columns", "x=east,y=north,time=when", "--in-sr", "2913",
                                                                  "--format", format])
            #expect(output.status == 0, "\(output.standardError)")
            let file = directory.appendingPathComponent("q.\(format == "csv" ? "csv" : "geojsonl")").path
            try output.standardOutput.write(toFile: file, atomically: true, encoding: .utf8)
            let package = directory.appendingPathComponent("\(format).gpkg").path
            let options = format == "csv" ? ["-oo", "X_POSSIBLE_NAMES=x", "-oo", "Y_POSSIBLE_NAMES=y", "-oo", "AUTODETECT_TYPE=YES", "-a_srs", "EPSG:4326"] : []
            let imported = try ProcessRunner.run(ogr2ogr, ["-f", "GPKG", package, file] + options)
            #expect(imported.status == 0, "\(format): \(imported.standardError)")
            let info = try ProcessRunner.run("/usr/bin/ogrinfo", ["-so", package, "q"])
            #expect(info.standardOutput.contains("Feature Count: 40"), "\(format): \(info.standardOutput)")
            #expect(info.standardOutput.contains("when: DateTime"), "\(format): \(info.standardOutput)")
            #expect(info.standardOutput.contains(#"ID["EPSG",4326]"#), "\(format)")
            let back = try ProcessRunner.run(ogr2ogr, ["-f", "CSV", "/vsistdout/", package, "-lco", "GEOMETRY=AS_XY", "-select", "seq"])
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
}
