import Foundation

/// One measured figure, printed as a line of the benchmark report.
struct BenchmarkResult {
    var name: String
    var count: Int
    var seconds: Double
    var unit: String
    var extra: String = ""

    var rate: Double { Double(count) / seconds }

    var line: String {
        let formattedRate = Int(rate.rounded()).formatted(.number.grouping(.automatic))
        return "\(name): \(formattedRate) \(unit)/s (\(count) in \(String(format: "%.3f", seconds)) s)" + (extra.isEmpty ? "" : "; \(extra)")
    }
}

/// A benchmark that could not run or produced a wrong result.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
