import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamModel

/// Once a second, when stderr is a terminal, shows observations/s, entities
/// and the connection status on one rewritten stderr line; while not
/// connected, the attempt number and why the last attempt failed (a DNS
/// failure, a refused connection), so a retrying session says what it is
/// waiting for (``statusText(_:)``).
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
            let status = Self.statusText(await target.sourceStatus())
            Stderr.write("\r\u{1B}[K\(Int(rate)) observations/s · \(entities) entities · \(written) written · \(status)")
            previous = written
            previousTime = now
        }
    }

    /// The status part of the line: `connected`, or `connecting (attempt 3:
    /// cannot resolve host 'x': …)` while retrying.
    static func statusText(_ source: any SourceStatus) -> String {
        let status = source.status.description
        guard source.status != .connection(.connected), let attempt = source.attempt,
              attempt > 0 || source.lastError != nil else { return status }
        var text = "\(status) (attempt \(attempt)"
        if let error = source.lastError { text += ": " + OneLine.text(error, maximumLength: 160) }
        return text + ")"
    }

    static func clearLine() {
        if Stderr.isTerminal { Stderr.write("\r\u{1B}[K") }
    }
}
