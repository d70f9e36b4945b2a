import EntityStreamCommandLine
import EntityStream
import EntityStreamAnalyses
import EntityStreamCore
import Foundation
import EntityStreamLocking
import EntityStreamModel

/// Runs one streaming command: the pipeline, the stdout writer, control
/// commands on stdin, progress on a terminal's stderr, and every way of
/// stopping (source ended or failed, `--limit`, `--duration`, closed stdout,
/// SIGINT/SIGTERM). Returns the exit status: 0, or 1 when the source failed
/// or stdout could not be written (other than closed by its reader).
///
/// The session is a task group of its services, nested so that stopping
/// ends them in order: first the watchers (stdin commands, progress, the
/// duration), then the analyses (allowed to finish when the source simply
/// ended, cancelled otherwise), then the source, then the pipeline is closed
/// and the writer drains everything published before that. Every task it
/// starts is a child of these groups, so all have ended when it returns.
struct StreamSession {
    enum StopReason: Sendable {
        case sourceEnded
        /// Standard input ended while holding the store after the source ended (`replay --hold`).
        case inputEnded
        case sourceFailed(String)
        case limitReached
        case outputClosed
        case outputFailed
        case durationElapsed
        case interrupted

        /// A stop by time or by signal: what is left to write gets a bounded time.
        var boundsTheDrain: Bool {
            switch self {
            case .durationElapsed, .interrupted: return true
            default: return false
            }
        }
    }

    let options: StreamOptions
    var clock: any EntityClock = SystemClock()
    /// Options for analyses that reach remote ArcGIS services.
    var remote = RemoteServiceOptions()
    /// Keep the store and answer control commands after the source ends,
    /// until standard input ends (`replay --hold`). Commands are then read
    /// only once the source has ended, so a query sees the whole file
    /// (they wait in stdin's pipe meanwhile).
    var holdAfterSourceEnds = false
    /// Rasters opened for the session (`--raster`), offered to analyses.
    var rasters = SessionRasters()
    /// What every observation's events carry (`--enrich`).
    var enricher: (any ObservationEnricher)?
    /// Read control commands from stdin (not when stdin carries the replayed file).
    var readsControlCommands = true
    /// Keep going when the source ends or fails for good, until stopped
    /// (Ctrl-C, SIGTERM, `--duration`, `--limit`): `serve` keeps serving the
    /// store. The end or failure is reported on stderr.
    var runsUntilStopped = false
    /// What runs beside the source on the same pipeline (`serve`'s server):
    /// started before the source (a failure ends the session, status 1),
    /// stopped after it.
    var companion: (any SessionCompanion)?
    /// After `--duration` or a signal, how long the events already published
    /// may take to reach stdout; what is still queued then is dropped, and
    /// stderr says how much (a slow reader does not hold the end for ever).
    var drainLimitMilliseconds: Int64 = 2_000
    /// What the stdout writer has written (a JetStream consumer acknowledges from it).
    var writtenCounters = JSONLinesWriter.Counters()
    /// Outputs beside stdout, each a bus subscriber of its own (`--publish`).
    var sideOutputs: [any SessionOutput] = []

    func run(makeSource: (StreamPipeline) throws -> any SessionSource) async throws -> Int32 {
        let pipeline = StreamPipeline(purgeOptions: options.purge, clock: clock)
        await pipeline.store.enrich(with: enricher)
        let source = try makeSource(pipeline)
        let subscriber = Subscriber(name: "stdout", filter: EventFilter(kinds: options.events), capacity: 65_536,
                                    policy: options.dropWhenSlow ? .dropOldest : .backPressure, clock: clock)
        await pipeline.bus.subscribe(subscriber)
        let writer = JSONLinesWriter(subscriber: subscriber, schema: pipeline.schema, format: options.format,
                                     coordinates: options.csvCoordinates, observationLimit: options.limit, counters: writtenCounters)
        var sides: [any RunningSessionOutput] = []
        for output in sideOutputs { sides.append(try await output.start(pipeline)) }
        for side in sides { await pipeline.bus.subscribe(side.subscriber) }
        let sideFailures = LockedState<[String]>([])
        let stops = StopTriggers<StopReason>(interrupted: .interrupted, durationSeconds: options.durationSeconds,
                                             durationElapsed: .durationElapsed, clock: clock)
        let hold = holdAfterSourceEnds
        let target = source.controlTarget
        var environment = AnalysisEnvironment(store: pipeline.store, streamStatus: { await target.sourceStatus().status }, clock: clock,
                                              remote: remote)
        environment[SessionRasters.self] = rasters
        let runtime = AnalysisRuntime(environment: environment) { await pipeline.publish($0) }
        let handler = ControlCommandHandler(session: ControlSession(pipeline: pipeline, target: target, runtime: runtime), registry: Program.controlCommands)
        let progress = ProgressReporter(pipeline: pipeline, counters: writer.writtenCounters, target: target)
        if let companion {
            do { try await companion.start(pipeline: pipeline, source: source) } catch {
                await pipeline.close()
                Stderr.line("entitystream: \(error)")
                return 1
            }
        }
        let keepsGoing = runsUntilStopped
        let stopping = LockedState(false)
        let ending = WriterEnding()
        var reason = StopReason.interrupted
        let (writerEnded, writerEnds) = AsyncStream.makeStream(of: Void.self)
        let dropped = LockedState<Int?>(nil)
        let drainLimit = drainLimitMilliseconds
        let clock = self.clock
        let (sourceEnded, sourceEnding) = AsyncStream.makeStream(of: Void.self)

        await withDiscardingTaskGroup { writing in
            for side in sides {
                writing.addTask {
                    if let failure = await side.run() { sideFailures.withLock { $0.append(failure) } }
                }
            }
            writing.addTask {
                let result = await writer.run()
                writerEnds.finish()
                ending.set(result)
                switch result {
                case .limitReached: stops.stop(.limitReached)
                case .outputClosed: stops.stop(.outputClosed)
                case .outputFailed: stops.stop(.outputFailed)
                case .finished: break
                }
            }
            await withDiscardingTaskGroup { sourcing in
                if let companion { sourcing.addTask { await companion.run() } }
                sourcing.addTask {
                    let failure = await source.run()
                    sourceEnding.finish()
                    if keepsGoing {
                        guard !stopping.withLock({ $0 }) else { return }
                        Stderr.line("entitystream: \(failure.map { "the source failed: \($0)" } ?? "the source ended"); still serving what the store holds until stopped")
                    } else if let failure { stops.stop(.sourceFailed(failure)) } else if !hold { stops.stop(.sourceEnded) }
                }
                await withDiscardingTaskGroup { analysing in
                    analysing.addTask { await runtime.run() }
                    await withDiscardingTaskGroup { watching in
                        if readsControlCommands {
                            watching.addTask {
                                // Under --hold, commands wait until the whole file is in the store.
                                if hold { for await _ in sourceEnded {} }
                                if Task.isCancelled { return }
                                for await line in StandardInputLines.stream() {
                                    await handler.handle(line)
                                }
                                if hold { stops.stop(.inputEnded) }
                            }
                        }
                        if let progress { watching.addTask { await progress.run() } }
                        watching.addTask { await stops.watchDuration() }
                        reason = await stops.firstReason()
                        stopping.withLock { $0 = true }
                        watching.cancelAll()
                    }
                    if reason.boundsTheDrain {
                        writing.addTask { await Self.boundDrain(writer, ended: writerEnded, limit: drainLimit, clock: clock, dropped: dropped) }
                    }
                    switch reason {
                    case .limitReached, .outputClosed, .outputFailed: subscriber.finish()
                    case .sourceEnded, .inputEnded, .sourceFailed, .durationElapsed, .interrupted: break
                    }
                    // Running analyses finish when the source simply ended (their results
                    // are what was asked for); any other stop cancels them.
                    await runtime.close()
                    switch reason {
                    case .sourceEnded, .inputEnded: break
                    default: analysing.cancelAll()
                    }
                }
                await source.stop()
                await companion?.stop()
                sourcing.cancelAll()
            }
            // Everything published so far reaches the writer, which then ends.
            await pipeline.close()
        }
        ProgressReporter.clearLine()
        let withoutColumn = writer.writtenCounters.valuesWithoutColumn
        if withoutColumn > 0 { Stderr.line("entitystream: \(withoutColumn) values had no column in the CSV table (fields the stream added after its header)") }
        if let count = dropped.withLock({ $0 }) {
            let why = if case .durationElapsed = reason { "--duration elapsed" } else { "stopping on a signal" }
            Stderr.line("entitystream: \(why): stdout did not take the last events within \(Double(drainLimit) / 1000) s; \(count) queued events were not written")
        }
        var status: Int32 = 0
        if case .sourceFailed(let message) = reason {
            Stderr.line("entitystream: \(message)")
            status = 1
        }
        for failure in sideFailures.withLock({ $0 }) {
            Stderr.line("entitystream: \(failure)")
            status = 1
        }
        // Also when the source ended first and the writer failed on what was left.
        if case .outputFailed(let failure)? = ending.value {
            Stderr.line("entitystream: cannot write to stdout: \(failure)")
            status = 1
        }
        return status
    }
}

/// Something that runs beside a session's source on the same pipeline
/// (`serve`'s server): ``start(pipeline:source:)`` before the source runs,
/// ``run()`` in the session's task group until ``stop()`` (after the source
/// stopped) makes it return.
protocol SessionCompanion: Sendable {
    /// Gets ready (subscribes, listens); throws what keeps it from starting.
    func start(pipeline: StreamPipeline, source: any SessionSource) async throws
    /// Works until ``stop()``.
    func run() async
    /// Ends ``run()`` and releases what ``start(pipeline:source:)`` took. Idempotent.
    func stop() async
}

extension StreamSession {
    /// Waits for the writer to end, at most `limit` ms on `clock`; past that,
    /// abandons it and keeps how many queued events were dropped.
    static func boundDrain(_ writer: JSONLinesWriter, ended: AsyncStream<Void>, limit: Int64, clock: any EntityClock,
                           dropped: LockedState<Int?>) async {
        let elapsed = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in ended {}
                return false
            }
            group.addTask {
                do { try await clock.sleep(milliseconds: limit) } catch { return false }
                return true
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if elapsed { dropped.withLock { $0 = writer.abandon() } }
    }
}

/// An output beside stdout (`--publish`): made for the session's pipeline,
/// it subscribes to the bus and runs until its subscription ends.
protocol SessionOutput: Sendable {
    func start(_ pipeline: StreamPipeline) async throws -> any RunningSessionOutput
}

/// A started ``SessionOutput``.
protocol RunningSessionOutput: Sendable {
    var subscriber: Subscriber { get }
    /// Runs until the subscription ends; the reason when it failed.
    func run() async -> String?
}

/// How the writer ended, handed from its child task to the session.
private final class WriterEnding: Sendable {
    private let state = LockedState<JSONLinesWriter.Ending?>(nil)
    func set(_ ending: JSONLinesWriter.Ending) { state.withLock { $0 = ending } }
    var value: JSONLinesWriter.Ending? { state.withLock { $0 } }
}
