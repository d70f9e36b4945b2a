import EntityStream
import EntityStreamCore
import EntityStreamLocking
import EntityStreamProjection
import EntityStreamModel
import EntityStreamCommandLine

/// Runs one analysis from the command line (`entitystream query`,
/// `statistics`, `hotspots`, `identify`) through the same runtime, bus and
/// JSON-lines output as the analyses of a running stream: the `accepted`
/// line, one `result` line per feature or record, `status` lines about a
/// remote service, then the summary (or `failed`, or `cancelled` on Ctrl-C).
/// `progress` goes to stderr, and only when stderr is a terminal — except
/// the lines ``keepsProgress`` picks (a job's status lines), which are
/// printed too. In a feature format (``format`` GeoJSON or CSV) stdout
/// carries only the results, as features (``FeatureFormatter``), and every
/// other line goes to stderr as a JSON line.
///
/// Returns the exit status: 0 when the job completed (or was interrupted),
/// 1 when it failed or stdout could not be written.
struct OneShotAnalysis {
    var format: OutputFormat = .esri
    /// Where a CSV writes x and y (WGS84 unless the user chose another; nil: as the results carry them).
    var coordinates: SpatialReference? = .wgs84
    var remote = RemoteServiceOptions()
    var clock: any EntityClock = SystemClock()
    /// Whether progress is drawn on stderr (`--progress`, `--no-progress`); nil: when stderr is a terminal.
    var showsProgress: Bool?
    /// Progress lines to print as well (the others only on a terminal's stderr).
    var keepsProgress: @Sendable (any AnalysisProgress) -> Bool = { _ in false }

    enum StopReason: Sendable {
        case finished
        case interrupted
        case outputClosed
        case outputFailed
    }

    func run(_ command: String, job: any AnalysisJob) async -> Int32 {
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: clock)
        let subscriber = Subscriber(name: "stdout", clock: clock)
        await pipeline.bus.subscribe(subscriber)
        let writer = JSONLinesWriter(subscriber: subscriber, schema: pipeline.schema, format: format, coordinates: coordinates)
        let keepsProgress = self.keepsProgress
        let stops = StopTriggers<StopReason>(interrupted: .interrupted, durationSeconds: nil, durationElapsed: .finished, clock: clock)
        let showsProgress = self.showsProgress ?? Stderr.isTerminal
        let runtime = AnalysisRuntime(environment: AnalysisEnvironment(clock: clock, remote: remote)) { events in
            var rest: [StreamEvent] = []
            for event in events {
                if case .analysis(let analysis) = event.payload, let progress = analysis.progress {
                    let kept = keepsProgress(progress)
                    if showsProgress { Stderr.write("\r\u{1B}[K\(command): " + progress.text + (kept ? "\n" : "")) }
                    if kept { rest.append(event) }
                } else {
                    rest.append(event)
                }
            }
            await pipeline.publish(rest)
        }
        let outcome = JobOutcome()
        let writerTask = Task {
            let ending = await writer.run()
            switch ending {
            case .outputClosed: stops.stop(.outputClosed)
            case .outputFailed: stops.stop(.outputFailed)
            case .finished, .limitReached: break
            }
            return ending
        }
        let analyses = Task {
            await runtime.run()
            stops.stop(.finished)
        }
        do {
            try await runtime.start(RecordingOutcome(job: job, outcome: outcome), id: .int(1), command: command)
        } catch {
            outcome.failed()
        }
        await runtime.close()
        let reason = await stops.firstReason()
        if case .finished = reason {} else { analyses.cancel() }
        await analyses.value
        if showsProgress { Stderr.write("\r\u{1B}[K") }
        if case .outputClosed = reason { subscriber.finish() }
        if case .outputFailed = reason { subscriber.finish() }
        await pipeline.close()
        let ending = await writerTask.value
        let dropped = writer.writtenCounters.valuesWithoutColumn
        if dropped > 0 { Stderr.line("entitystream: \(dropped) values had no column in the CSV table (its columns are those of its first row)") }
        if case .outputFailed(let failure) = ending {
            Stderr.line("entitystream: cannot write to stdout: \(failure)")
            return 1
        }
        if outcome.hasFailed, let reason = outcome.reason { Stderr.line("entitystream: \(command): \(reason)") }
        return outcome.hasFailed ? 1 : 0
    }

    /// Whether the job failed (for the exit status), and why.
    final class JobOutcome: Sendable {
        private let state = LockedState<(failed: Bool, reason: String?)>((false, nil))
        func failed(_ reason: String? = nil) { state.withLock { $0 = (true, reason) } }
        var hasFailed: Bool { state.withLock { $0.failed } }
        var reason: String? { state.withLock { $0.reason } }
    }

    /// The job, noting a failure (not a cancellation) for the exit status:
    /// a thrown error, or a completed job's summary saying part of its input
    /// could not be read (``AnalysisSummary/incompleteInput``).
    struct RecordingOutcome: AnalysisJob {
        let job: any AnalysisJob
        let outcome: JobOutcome
        func run(in context: AnalysisContext) async throws -> AnalysisSummary {
            do {
                let summary = try await job.run(in: context)
                if let reason = summary.incompleteInput { outcome.failed(reason) }
                return summary
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                if !Task.isCancelled { outcome.failed(String(describing: error)) }
                throw error
            }
        }
    }
}
