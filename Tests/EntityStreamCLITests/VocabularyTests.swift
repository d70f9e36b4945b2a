import EntityStreamCommandLine
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamProjection
import Testing

/// Writes `lines` to a temporary file with extension `suffix`.
private func temporary(_ lines: [String], suffix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("vocabulary-\(UUID().uuidString).\(suffix)").path
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite("One vocabulary, one parser, both programs", .bounded(.io))
struct VocabularyTests {
    /// The parser both programs share: a value attached (`--flag=value`) or following, whatever it starts with; a flag
    /// that takes none refuses an attached one; `--version` in flag position is a version request; a deprecated
    /// spelling is read as the flag it stands for.
    @Test func sharedParser() throws {
        var arguments = ArgumentList(["--where=a = 1", "--token", "-x", "--loop=yes"])
        #expect(try arguments.nextFlag() == "--where")
        #expect(try arguments.value(for: "--where") == "a = 1")
        #expect(try arguments.nextFlag() == "--token")
        #expect(try arguments.value(for: "--token") == "-x")
        #expect(try arguments.nextFlag() == "--loop")
        #expect(throws: UsageError.self) { try arguments.next() }
        var version = ArgumentList(["--fleet", "2", "--version"])
        _ = try version.nextFlag()
        _ = try version.value(for: "--fleet")
        #expect(throws: VersionRequested.self) { try version.nextFlag() }
        var aliased = ArgumentList(["--sr", "4326"], program: "test")
        aliased.aliases = ["--sr": "--in-sr"]
        #expect(try aliased.nextFlag() == "--in-sr")
        #expect(try aliased.spatialReference(for: "--in-sr") == .wgs84)
        var bogus = ArgumentList(["--out-sr", "EPSG:99999"])
        _ = try bogus.nextFlag()
        #expect(throws: UsageError.self) { try bogus.spatialReference(for: "--out-sr") }
    }

    /// The old spellings still work, each with one warning on stderr naming its replacement, and give exactly what
    /// the new ones give: replay --csv id=…, identify --sr, hotspots --x/--y/--wkid/--time-field/--from/--to/--query,
    /// and the simulator's --csv, --layer-columns, --hotspots-columns, --layer-format and wkid= in a mapping.
    @Test func deprecatedSpellingsStillWork() async throws {
        let tracks = try temporary(["bus,at,lon,lat", "B1,2024-05-01T08:00:00Z,-122.7,45.6", "B2,2024-05-01T08:00:01Z,-122.6,45.5"], suffix: "csv")
        defer { try? FileManager.default.removeItem(atPath: tracks) }
        let old = try await CommandLineTool.run("entitystream", ["replay", tracks, "--csv", "id=bus,time=at,x=lon,y=lat", "--events", "observation"])
        let new = try await CommandLineTool.run("entitystream", ["replay", tracks, "--columns", "track=bus,time=at,x=lon,y=lat", "--events", "observation"])
        #expect(old.status == 0 && new.status == 0, "\(old.standardError) \(new.standardError)")
        #expect(old.standardError.contains("warning: --csv is deprecated; use --columns"))
        #expect(old.standardError.contains("warning: --columns id= is deprecated; use track="))
        #expect(new.standardError.isEmpty)
        func withoutTimes(_ text: String) -> String { text.replacing(/"time":"[^"]*","epoch":\d+/, with: "") }
        #expect(withoutTimes(old.standardOutput) == withoutTimes(new.standardOutput) && old.standardOutput.split(separator: "\n").count == 2)

        let incidents = try temporary(["occ_date,east,north"] + (0..<80).map { "2015-01-\(String(format: "%02d", 1 + $0 % 28)),\(7_640_000 + ($0 % 9) * 300),\(680_000 + ($0 / 9) * 300)" },
                                      suffix: "csv")
        defer { try? FileManager.default.removeItem(atPath: incidents) }
        let oldHotSpots = try await CommandLineTool.run("entitystream", ["hotspots", incidents, "--x", "east", "--y", "north", "--wkid", "2913",
                                                                   "--time-field", "occ_date", "--from", "2015-01-03", "--to", "2015-01-20", "--force"])
        let newHotSpots = try await CommandLineTool.run("entitystream", ["hotspots", incidents, "--columns", "x=east,y=north,time=occ_date", "--in-sr", "2913",
                                                                   "--time", "2015-01-03,2015-01-20", "--force"])
        #expect(oldHotSpots.status == 0 && newHotSpots.status == 0, "\(oldHotSpots.standardError) \(newHotSpots.standardError)")
        for (flag, replacement) in [("--x C", "--columns x=C"), ("--y C", "--columns y=C"), ("--time-field C", "--columns time=C"),
                                    ("--wkid", "--in-sr")] {
            #expect(oldHotSpots.standardError.contains("warning: \(flag) is deprecated; use \(replacement)"), "\(flag)")
        }
        #expect(oldHotSpots.standardError.contains("warning: --from and --to are deprecated; use --time START,END"))
        #expect(withoutTimes(oldHotSpots.standardOutput) == withoutTimes(newHotSpots.standardOutput))

        let layer = try temporary(["px,py,v", "1,2,3"], suffix: "txt")
        defer { try? FileManager.default.removeItem(atPath: layer) }
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), [
            "--layer", "L=\(layer)", "--layer-columns", "L=x=px,y=py,wkid=2913", "--layer-format", "L=csv", "--port", "0"])
        defer { simulator.stop() }
        let warnings = [await simulator.waitForErrorLine(containing: "--layer-columns is deprecated"),
                        await simulator.waitForErrorLine(containing: "--layer-format is deprecated")]
        #expect(warnings.allSatisfy { $0 != nil })
        #expect(await simulator.waitForErrorLine(containing: "layer L: 1 features") != nil)
    }
}
