import Foundation

/// `entitystream-bench`: the release-build benchmarks `make bench` runs.
///
///     entitystream-bench [transport] [--count N]
///
/// Internal: `transport-server --count N` is the server process the transport
/// benchmark starts.
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let parsed = Int(arguments[index + 1]) else { return value }
    return parsed
}
let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
let selected = arguments.first { !$0.hasPrefix("--") && Int($0) == nil }

do {
    switch selected {
    case "transport-server":
        try await TransportBenchmark.runServer(count: option("--count", default: 1_000_000))
    case "transport", nil:
        let count = option("--count", default: 1_000_000)
        var best: BenchmarkResult?
        for _ in 0..<3 {
            let result = try await TransportBenchmark.run(count: count, executable: executable)
            if best == nil || result.rate > best!.rate { best = result }
        }
        print(best!.line + " [best of 3]")
    case "stages":
        for result in try StageBenchmark.run(path: arguments.dropFirst().first { !$0.hasPrefix("--") } ?? "../shared/data/tracks/AIS_MarineCadastre_SelectedVessels_CustomDataSource.json",
                                             count: option("--count", default: 1_000_000)) {
            print(result.line)
        }
    default:
        FileHandle.standardError.write(Data("unknown benchmark '\(selected!)'\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
