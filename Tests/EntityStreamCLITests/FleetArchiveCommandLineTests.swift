import EntityStreamTestSupport
import Foundation
import Testing

/// The JSON objects of `output`'s lines.
private func objects(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

@Suite("stream-simulator's fleet archive and vehicle table, as entitystream connect sees them", .bounded(.io))
struct FleetArchiveCommandLineTests {
    /// By default a fleet service primes each vehicle's latest report first ("primed":true, one per vehicle) and
    /// every observation carries the vehicle table's fields; --no-archive and --no-related turn both off.
    @Test func archiveAndRelatedFlags() async throws {
        let vehicles = 4
        for (flags, archived, related) in [([String](), true, true), (["--no-archive"], false, true),
                                           (["--no-related"], true, false), (["--no-archive", "--no-related"], false, false)] {
            let fleet = try RunningProcess(CommandLineTool.path("stream-simulator"),
                                           ["--fleet", String(vehicles), "--rate", "20", "--port", "0"] + flags)
            defer { fleet.stop() }
            let port = try #require(await fleet.waitForPort())
            let connect = try await CommandLineTool.run("entitystream", [
                "connect", "http://127.0.0.1:\(port)/arcgis/rest/services/SandyVehicles/StreamServer",
                "--limit", String(vehicles + 3), "--events", "observation,error"])
            #expect(connect.status == 0, "\(flags): \(connect.standardError)")
            let lines = objects(connect.standardOutput)
            #expect(!lines.contains { $0["event"] as? String == "error" }, "\(flags): \(connect.standardOutput)")
            let primed = lines.filter { $0["primed"] as? Bool == true }
            let live = lines.filter { $0["primed"] == nil }
            if archived {
                // One primed observation per vehicle, all before the first live one.
                #expect(Set(primed.compactMap { $0["track"] as? String }).count == vehicles && primed.count == vehicles, "\(flags)")
                #expect(lines.prefix(vehicles).allSatisfy { $0["primed"] as? Bool == true }, "\(flags)")
            } else {
                #expect(primed.isEmpty, "\(flags)")
            }
            #expect(!live.isEmpty, "\(flags)")
            for line in lines {
                let attributes = line["attributes"] as? [String: Any] ?? [:]
                if related {
                    #expect(["North", "South", "East", "West"].contains(attributes["depot"] as? String ?? ""), "\(flags): \(attributes)")
                    #expect(attributes["modelyear"] is Int, "\(flags): \(attributes)")
                } else {
                    #expect(attributes["depot"] == nil && attributes["modelyear"] == nil, "\(flags): \(attributes)")
                }
            }
        }
    }
}
