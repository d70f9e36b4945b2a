import Foundation

/// Turns SIGINT and SIGTERM into a callback (once), so the program can
/// disconnect and flush before exiting with status 0. SIGPIPE is ignored:
/// a closed stdout shows up as a write error and ends the program quietly.
/// (`@unchecked`: the dispatch sources are only created and cancelled, both thread-safe.)
final class SignalWatcher: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(onSignal: @escaping @Sendable () -> Void) {
        signal(SIGPIPE, SIG_IGN)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: onSignal)
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
