import EntityStream
import EntityStreamCore
import Foundation

/// Once a second, when stderr is a terminal, shows observations/s, entities
/// and the connection status on one rewritten stderr line.
struct ProgressReporter {
    let pipeline: StreamPipeline
    let counters: JSONLinesWriter.Counters
    let target: any ControlTarget

    init?(pipeline: StreamPipeline, counters: JSONLinesWriter.Counters, target: any ControlTarget) {
        guard Stderr.isTerminal else { return nil }
        self.pipeline = pipeline
        self.counters = counters
        self.target = target
    }

    func run() async {
        var previous = counters.observationsWritten
        var previousTime = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            let now = ContinuousClock.now
            let written = counters.observationsWritten
            let elapsed = Double((now - previousTime).components.attoseconds) / 1e18 + Double((now - previousTime).components.seconds)
            let rate = elapsed > 0 ? Double(written - previous) / elapsed : 0
            let entities = await pipeline.store.entityCount
            let facts = await target.statusFacts()
            let status = facts["status"]?.stringValue ?? "-"
            Stderr.write("\r\u{1B}[K\(Int(rate)) observations/s · \(entities) entities · \(written) written · \(status)")
            previous = written
            previousTime = now
        }
    }

    static func clearLine() {
        if Stderr.isTerminal { Stderr.write("\r\u{1B}[K") }
    }
}
