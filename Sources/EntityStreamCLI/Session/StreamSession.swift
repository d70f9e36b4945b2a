import EntityStream
import EntityStreamCore
import Foundation

/// Runs one streaming command: the pipeline, the stdout writer, control
/// commands on stdin, progress on a terminal's stderr, and every way of
/// stopping (source ended or failed, `--limit`, `--duration`, closed stdout,
/// SIGINT/SIGTERM). Returns the exit status: 0, or 1 when the source failed
/// or stdout could not be written (other than closed by its reader).
struct StreamSession {
    enum StopReason: Sendable {
        case sourceEnded
        case sourceFailed(String)
        case limitReached
        case outputClosed
        case outputFailed
        case durationElapsed
        case interrupted
    }

    let options: StreamOptions
    var clock: any EntityClock = SystemClock()
    var readsControlCommands = true

    func run(makeSource: (StreamPipeline) throws -> any SessionSource) async throws -> Int32 {
        let pipeline = StreamPipeline(purgeOptions: options.purge, clock: clock)
        let source = try makeSource(pipeline)
        let subscriber = Subscriber(name: "stdout", filter: EventFilter(kinds: options.events), capacity: 65_536,
                                    policy: options.dropWhenSlow ? .dropOldest : .backPressure, clock: clock)
        await pipeline.bus.subscribe(subscriber)
        let writer = JSONLinesWriter(subscriber: subscriber, schema: pipeline.schema, format: options.format,
                                     observationLimit: options.limit)
        let (stops, stop) = AsyncStream.makeStream(of: StopReason.self)

        let writerTask = Task {
            let ending = await writer.run()
            switch ending {
            case .limitReached: stop.yield(.limitReached)
            case .outputClosed: stop.yield(.outputClosed)
            case .outputFailed: stop.yield(.outputFailed)
            case .finished: break
            }
            return ending
        }
        let sourceTask = Task {
            _ = stop.yield(await source.run().map { .sourceFailed($0) } ?? .sourceEnded)
        }
        let signals = SignalWatcher { stop.yield(.interrupted) }
        var background: [Task<Void, Never>] = []
        if let seconds = options.durationSeconds {
            background.append(Task {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                if !Task.isCancelled { stop.yield(.durationElapsed) }
            })
        }
        if readsControlCommands {
            let handler = ControlCommandHandler(pipeline: pipeline, target: source.controlTarget)
            background.append(Task {
                for await line in StandardInputLines.stream() {
                    await handler.handle(line: line)
                }
            })
        }
        if let progress = ProgressReporter(pipeline: pipeline, counters: writer.writtenCounters, target: source.controlTarget) {
            background.append(Task { await progress.run() })
        }

        var iterator = stops.makeAsyncIterator()
        let reason = await iterator.next() ?? .interrupted
        signals.cancel()
        for task in background { task.cancel() }
        if case .limitReached = reason { subscriber.finish() }
        if case .outputClosed = reason { subscriber.finish() }
        if case .outputFailed = reason { subscriber.finish() }
        await source.stop()
        sourceTask.cancel()
        await sourceTask.value
        await pipeline.close()
        let ending = await writerTask.value
        for task in background { await task.value }
        ProgressReporter.clearLine()
        var status: Int32 = 0
        if case .sourceFailed(let message) = reason {
            Stderr.line("entitystream: \(message)")
            status = 1
        }
        // Also when the source ended first and the writer failed on what was left.
        if case .outputFailed(let failure) = ending {
            Stderr.line("entitystream: cannot write to stdout: \(failure)")
            status = 1
        }
        return status
    }
}
