import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamModel
import EntityStream
import EntityStreamTransport

/// A hot-spot analysis run by a remote ArcGIS geoprocessing service, as the
/// "Analyze hotspots" sample runs `911 Calls Hotspot`: the same lines as
/// ``LocalHotSpotJob`` (``GPJobReporter``), with the server's job id,
/// statuses and messages.
///
/// 1. `submitJob` (a POST form) with `Query` (when given), `env:outSR`
///    (``outSR``: the results' spatial reference) and `env:processSR`
///    (``processSR``: the one distances are measured in) when given,
///    `returnZ`/`returnM` false;
/// 2. polls `jobs/<id>` with back-off (``GPJobPoller``, ``policy``), one
///    status line per change (with the new messages);
/// 3. on `esriJobSucceeded` fetches `results/Output_Features` (or the job's
///    first result) and prints its features as `result` lines (points or
///    polygons in the result's spatial reference), then a summary
///    (``RemoteHotSpotReport``: job id, status, feature count, the bins counted from `Gi_Bin`).
///
/// The service's reachability goes out as `status` events with `source`
/// `gp <task URL>`. A failed, timed-out or deleted job, an ArcGIS error or an
/// unreachable service end the analysis `failed` with the reason (never a
/// token). Cancelling the analysis (the `cancel` command, Ctrl-C) sends
/// `jobs/<id>/cancel`, reports the status it answers, and keeps polling
/// until the server confirms (bounded by the policy's grace):
/// `esriJobCancelling`, `esriJobCancelled`, then `cancelled`.
public struct RemoteHotSpotJob: AnalysisJob {
    public var taskURL: String
    /// The `Query` parameter (nil: not sent).
    public var query: String?
    /// `env:outSR`, the results' spatial reference code (nil: not sent, the service's default).
    public var outSR: Int?
    /// `env:processSR`, the spatial reference distances are measured in (nil: not sent, the data's own).
    public var processSR: Int?
    public var policy: GPJobPollPolicy
    /// The result parameter to print.
    public var resultName = "Output_Features"

    public init(taskURL: String, query: String?, outSR: Int? = 102100, processSR: Int? = nil, policy: GPJobPollPolicy = GPJobPollPolicy()) {
        self.taskURL = taskURL
        self.query = query
        self.outSR = outSR
        self.processSR = processSR
        self.policy = policy
    }

    /// The `submitJob` form (without `f` and the token).
    public var submitParameters: [(String, String)] {
        var parameters: [(String, String)] = []
        if let query { parameters.append(("Query", query)) }
        if let outSR = SpatialReference(code: outSR) { parameters.append(("env:outSR", outSR.parameterText)) }
        if let processSR = SpatialReference(code: processSR) { parameters.append(("env:processSR", processSR.parameterText)) }
        parameters.append(("returnZ", "false"))
        parameters.append(("returnM", "false"))
        return parameters
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        var options = GeoprocessingClientOptions()
        options.http = context.environment.remote.http
        options.http.maximumBodySize = max(options.http.maximumBodySize, 256 * 1024 * 1024)
        options.clock = context.environment.clock
        if let token = context.environment.remote.token { options.tokenSource = StaticTokenSource(token) }
        options.onStatus = context.statusRelay(service: "gp")
        let client = try GeoprocessingClient(taskURL: taskURL, options: options)
        let conversation = Conversation(job: self, client: client, context: context)
        let request = CancelRequest()
        // The conversation must outlive a cancel of this task: it sends the cancel and awaits its confirmation.
        let driver = Task { try await conversation.run(cancel: request) }
        return try await withTaskCancellationHandler {
            try await driver.value
        } onCancel: {
            request.fire()
        }
    }

    /// One job's conversation with the service.
    private struct Conversation: Sendable {
        let job: RemoteHotSpotJob
        let client: GeoprocessingClient
        let context: AnalysisContext

        var clock: any EntityClock { context.environment.clock }

        /// The shell of a ``GPJobConversation``: submits the job, then carries out each action the machine returns.
        func run(cancel: CancelRequest) async throws -> AnalysisSummary {
            let submitted: GPSubmitJobResponse
            do {
                submitted = try await client.submitJob(job.submitParameters)
            } catch {
                if cancel.isFired { throw CancellationError() }
                throw error
            }
            let reporter = GPJobReporter(context: context, jobID: submitted.jobID)
            var machine = GPJobConversation(submitted: submitted, policy: job.policy, resultName: job.resultName, at: clock.now())
            var action = machine.start(at: clock.now(), cancelRequested: cancel.isFired)
            while true {
                switch action {
                case .report(let status, let messages):
                    await reporter.status(status, messages: messages)
                    action = machine.reported(at: clock.now(), cancelRequested: cancel.isFired)
                case .wait(let deadline):
                    await cancel.sleep(until: deadline, clock: clock)
                    action = machine.woke(at: clock.now(), cancelRequested: cancel.isFired)
                case .poll(let id):
                    do {
                        let info = try await client.job(id)
                        action = machine.received(info, at: clock.now(), cancelRequested: cancel.isFired)
                    } catch {
                        action = machine.requestFailed(.request(GPClientFailure(error)), at: clock.now(), cancelRequested: cancel.isFired)
                    }
                case .sendCancel(let id):
                    // The cancel answers the job's status (esriJobCancelling, or already final): handled as a poll's.
                    do {
                        let answer = try await client.cancelJob(id)
                        action = machine.received(answer, at: clock.now(), cancelRequested: cancel.isFired)
                    } catch {
                        action = machine.requestFailed(.cancel(GPClientFailure(error)), at: clock.now(), cancelRequested: cancel.isFired)
                    }
                case .fetchResult(let id, let name):
                    let set = try await fetch(id, name: name)
                    var start = 0
                    while start < set.features.count {
                        let end = min(start + 1024, set.features.count)
                        await context.emit(Array(set.features[start..<end]))
                        start = end
                    }
                    action = machine.fetched(set, name: name, at: clock.now(), cancelRequested: cancel.isFired)
                case .end(let ending):
                    return try summary(ending, jobID: machine.jobID)
                }
            }
        }

        private func fetch(_ id: String, name: String) async throws -> GPFeatureRecordSet {
            let parameter = try await client.result(id, parameter: name)
            do { return try GPFeatureRecordSet(json: parameter.value) } catch {
                throw RemoteHotSpotError.result(name: name, task: client.displayURL, error)
            }
        }

        /// The summary of a succeeded job; the error that ends any other.
        private func summary(_ ending: GPJobConversation.Ending, jobID: String) throws -> AnalysisSummary {
            switch ending {
            case .succeeded(let result):
                return AnalysisSummary(RemoteHotSpotReport(task: client.displayURL, query: job.query, result: result))
            case .gaveUp(let reason):
                throw RemoteHotSpotError.gaveUp(jobID: jobID, task: client.displayURL, reason)
            case .cancelled:
                throw CancellationError()
            case .ended(let final, let errors):
                throw RemoteHotSpotError.ended(jobID: jobID, final, errors: errors)
            case .noFinalStatus:
                throw RemoteHotSpotError.noFinalStatus(jobID: jobID)
            }
        }
    }
}
