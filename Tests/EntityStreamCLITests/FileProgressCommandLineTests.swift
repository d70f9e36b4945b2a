import EntityStreamTestSupport
import Foundation
import Testing

@Suite("Progress of statistics, query and hotspots over a file: stderr only", .bounded(.io))
struct FileProgressCommandLineTests {
    /// A CSV of `rows` rows the test writes: id, grp (7 groups), val, lon, lat.
    static func file(rows: Int) throws -> String {
        var text = "id,grp,val,lon,lat\n"
        for id in 1...rows { text += "\(id),g\(id % 7),\(id % 101),\(-111 + Double(id % 50) * 0.01),\(40 + Double(id % 40) * 0.01)\n" }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-progress-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// With `--progress` (forced, stderr being a pipe here) each command's
    /// stdout is byte for byte what it is with `--no-progress` and by
    /// default (no terminal: no progress), and stderr carries the rows read
    /// and 100 percent at the end; without it, stderr has no progress.
    @Test func stdoutIsUnchangedAndStderrCarriesTheProgress() async throws {
        let rows = 2_000   // the end of the file is reported once whatever its size
        let path = try Self.file(rows: rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let commands: [[String]] = [
            ["statistics", path, "--stat", "count:val", "--stat", "avg:val", "--group-by", "grp", "--format", "csv"],
            ["query", path, "--where", "val > 90", "--format", "csv"],
            ["hotspots", path, "--value-field", "val", "--format", "geojson"],
        ]
        for command in commands {
            let shown = try await CommandLineTool.run("entitystream", command + ["--progress"])
            let hidden = try await CommandLineTool.run("entitystream", command + ["--no-progress"])
            let plain = try await CommandLineTool.run("entitystream", command)
            #expect(shown.status == 0 && hidden.status == 0 && plain.status == 0, "\(command): \(shown.standardError)")
            #expect(!shown.standardOutput.isEmpty)
            #expect(shown.standardOutput == hidden.standardOutput, "\(command)")
            #expect(shown.standardOutput == plain.standardOutput, "\(command)")
            #expect(!shown.standardOutput.contains("percent"))
            #expect(shown.standardError.contains("\(command[0]): rows \(rows) · rowsPerSecond "), "\(command): \(shown.standardError)")
            #expect(shown.standardError.contains("percent 100"), "\(command): \(shown.standardError)")
            #expect(!hidden.standardError.contains("percent") && !plain.standardError.contains("percent"), "\(command)")
        }
        let help = try await CommandLineTool.run("entitystream", ["statistics", "--help"])
        #expect(help.standardOutput.contains("--progress, --no-progress"))
    }
}
