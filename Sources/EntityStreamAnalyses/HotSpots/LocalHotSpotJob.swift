import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamLocking
import EntityStreamProjection
import EntityStreamModel
import EntityStream

/// A hot-spot analysis run here, on the store or a file, as a geoprocessing
/// job with ArcGIS's statuses — the same lines a remote GP service's job
/// gives (``GPJobReporter``):
///
/// 1. `esriJobSubmitted`, then `esriJobExecuting` (a ``GPJob`` drives the
///    statuses and messages);
/// 2. the points are read (``HotSpotSource``) and the engine runs
///    (``HotSpotAnalysis``) on the analysis threads, with throttled engine
///    progress lines (`fraction`, `stage`);
/// 3. `esriJobSucceeded` with the analysis's messages, then one `result`
///    line per feature (``HotSpotOutput``: the point or fishnet cell,
///    `SOURCE_ID`, the value, `GiZScore`, `GiPValue`, `NNeighbors`,
///    `Gi_Bin`), then the summary (``LocalHotSpotReport``: the job id and
///    status, what was selected, the engine's figures).
///
/// A refusal (too few features, no variance, a bad where clause…) ends the
/// job `esriJobFailed` with an error message and the analysis `failed`. A
/// cancel (the `cancel` command, Ctrl-C) stops the engine at its next poll:
/// `esriJobCancelling`, `esriJobCancelled`, then `cancelled`.
public struct LocalHotSpotJob: AnalysisJob {
    public var source: HotSpotSource
    /// The numeric field of weighted points; nil for incidents (counted by the aggregation).
    public var valueField: String?
    public var options: HotSpotOptions
    /// The spatial reference distances are measured in (nil: the data's own; see ``HotSpotPointReading``).
    public var processSR: Int?
    /// The spatial reference results are written in (nil: the data's own).
    public var outSR: Int?
    /// Result lines per batch.
    static let batchSize = 1024

    public init(source: HotSpotSource, valueField: String? = nil, options: HotSpotOptions = HotSpotOptions(),
                processSR: Int? = nil, outSR: Int? = nil) {
        self.source = source
        self.valueField = valueField
        self.options = options
        self.processSR = processSR
        self.outSR = outSR
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let clock = context.environment.clock
        let reporter = GPJobReporter(context: context, jobID: Self.jobID(for: context.job))
        var (job, actions) = try GPJob.submit(id: reporter.jobID, at: clock.now())
        var reported = 0
        /// Publishes the status (and the messages not yet published) when an action says so.
        func carryOut(_ actions: [GPJobAction]) async {
            for case .publish(let status) in actions {
                await reporter.status(status, messages: Array(job.messages[min(reported, job.messages.count)...]))
                reported = job.messages.count
            }
        }
        await carryOut(actions)
        do {
            actions = try job.start(at: clock.now())
            await carryOut(actions)
            let prepared = try await source.prepare(valueField: valueField, processing: processSR, in: context)
            let result = try await analyse(prepared.input, reporter: reporter)
            let reading = prepared.reading
            let output: HotSpotOutput
            do {
                output = try HotSpotOutput(result: result, valueField: prepared.valueField, sourceID: { [prepared] in prepared.sourceID($0) },
                                           wkid: reading.processingWKID, outSR: outSR ?? reading.outputWKID)
            } catch {
                throw AnalysisFailure("outSR: \(error)")
            }
            let processing = SpatialReference(code: reading.processingWKID)
            try job.note("Distances are measured in \(reading.distanceUnit) (processing spatial reference \(processing.map(String.init(describing:)) ?? "unknown")).")
            for line in HotSpotSummaryJSON.messages(result, unit: reading.distanceUnit) { try job.note(line) }
            actions = try job.succeed(results: ["Output_Features"], at: clock.now())
            await carryOut(actions)
            var start = 0
            while start < output.count {
                try context.checkCancellation()
                let end = min(start + Self.batchSize, output.count)
                await context.emit((start..<end).map(output.feature))
                start = end
            }
            return AnalysisSummary(LocalHotSpotReport(jobID: job.id, jobStatus: job.status, features: output.count, selection: prepared.selection,
                                                      processingSpatialReference: processing, outputSpatialReference: SpatialReference(code: output.wkid),
                                                      engine: result.summary, fishnet: result.fishnet))
        } catch let error where error is CancellationError || Task.isCancelled {
            if let cancelling = try? job.cancel(at: clock.now()) {
                await carryOut(cancelling)
                if job.status == .cancelling, let stopped = try? job.workStopped(at: clock.now()) { await carryOut(stopped) }
            }
            throw CancellationError()
        } catch {
            let reason = (error as? HotSpotError)?.description ?? (error as? AnalysisFailure)?.description ?? String(describing: error)
            if let failed = try? job.fail(reason, at: clock.now()) { await carryOut(failed) }
            throw AnalysisFailure(reason)
        }
    }

    /// Runs the engine in this task (on the analysis threads), publishing
    /// throttled progress from a companion task.
    private func analyse(_ input: HotSpotInput, reporter: GPJobReporter) async throws -> HotSpotResult {
        let (reports, continuation) = AsyncStream.makeStream(of: (Double, HotSpotMonitor.Stage).self, bufferingPolicy: .bufferingNewest(8))
        let throttle = LockedState(HotSpotProgressThrottle())
        let monitor = HotSpotMonitor(shouldStop: { Task.isCancelled }, progress: { fraction, stage in
            if throttle.withLock({ $0.offer(fraction, stage) }) { continuation.yield((fraction, stage)) }
        })
        async let published: Void = {
            for await (fraction, stage) in reports { await reporter.progress(fraction, stage: stage, status: .executing) }
        }()
        let result: HotSpotResult
        do {
            result = try HotSpotAnalysis(options: options).run(input, monitor: monitor)
        } catch {
            continuation.finish()
            await published
            throw error
        }
        continuation.finish()
        await published
        return result
    }

    /// `local-<id>` with the command id's letters, digits, `_` and `-` (at most 64).
    static func jobID(for id: JSONValue) -> String {
        let text: String
        switch id {
        case .string(let s): text = s
        case .int(let i): text = String(i)
        default: text = "\(id)"
        }
        let kept = text.unicodeScalars.filter { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == "-" }
        return "local-" + String(String.UnicodeScalarView(kept.prefix(64)))
    }
}
