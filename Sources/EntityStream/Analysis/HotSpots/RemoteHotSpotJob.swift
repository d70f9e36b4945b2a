import EntityStreamCore
import HotSpots
import Locking
import Projection

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
///    polygons in the result's spatial reference), then a summary (job id,
///    status, feature count, the bins counted from `Gi_Bin`).
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

    public func run(in context: AnalysisContext) async throws -> JSONObject {
        let statuses = LockedState<[ConnectionStatusChange]>([])
        var options = GeoprocessingClientOptions()
        options.http = context.environment.remote.http
        options.http.maximumBodySize = max(options.http.maximumBodySize, 256 * 1024 * 1024)
        options.clock = context.environment.clock
        if let token = context.environment.remote.token { options.tokenSource = StaticTokenSource(token) }
        options.onStatus = { change in statuses.withLock { $0.append(change) } }
        let client: GeoprocessingClient
        do { client = try GeoprocessingClient(taskURL: taskURL, options: options) } catch { throw AnalysisFailure(error.description) }
        let conversation = Conversation(job: self, client: client, context: context, statuses: statuses)
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
        let statuses: LockedState<[ConnectionStatusChange]>

        var clock: any EntityClock { context.environment.clock }

        /// Publishes the service's status changes so far, in order with the other lines.
        func flushStatuses() async {
            let source = "gp \(client.displayURL)"
            for var change in statuses.withLock({ changes in defer { changes.removeAll() }; return changes }) {
                change.source = source
                await context.status(change)
            }
        }

        func run(cancel: CancelRequest) async throws -> JSONObject {
            let submitted: GPSubmitJobResponse
            do {
                submitted = try await client.submitJob(job.submitParameters)
            } catch {
                await flushStatuses()
                if cancel.isFired { throw CancellationError() }
                throw AnalysisFailure(error.description)
            }
            await flushStatuses()
            let reporter = GPJobReporter(context: context, jobID: submitted.jobID)
            var poller = GPJobPoller(policy: job.policy)
            var pending = poller.submitted(submitted, at: clock.now())
            var status = submitted.status
            var unpublished = false
            var newMessages: [GPJobMessage] = []
            var allMessages: [GPJobMessage] = []
            var cancelSent = false
            var ending: (status: GPJobStatus?, reason: String?) = (nil, nil)
            var delivered = 0
            var bins = HotSpotBinCounts()
            var resultWKID: Int?
            var resultName: String?

            func add(_ actions: [GPJobPollAction]) {
                if actions.contains(where: { if case .waitUntil = $0 { return true }; return false }) {
                    pending.removeAll { if case .waitUntil = $0 { return true }; return false }
                }
                pending += actions
            }
            func publish() async {
                guard unpublished || !newMessages.isEmpty else { return }
                await reporter.status(status, messages: newMessages)
                unpublished = false
                newMessages.removeAll()
            }

            while !pending.isEmpty || (cancel.isFired && !cancelSent && ending.status == nil && ending.reason == nil) {
                if cancel.isFired, !cancelSent {
                    cancelSent = true
                    add(poller.cancel(at: clock.now()))
                }
                guard !pending.isEmpty else { break }
                let action = pending.removeFirst()
                switch action {
                case .statusChanged(_, let to):
                    status = to
                    unpublished = true
                    continue
                case .newMessages(let messages):
                    newMessages += messages
                    allMessages += messages
                    continue
                default:
                    await publish()
                }
                switch action {
                case .waitUntil(let deadline):
                    await cancel.sleep(until: deadline, clock: clock)
                    if cancel.isFired, !cancelSent { continue }
                    add(poller.tick(at: clock.now()))
                case .poll(let id):
                    do {
                        let info = try await client.job(id)
                        add(poller.received(info, at: clock.now()))
                    } catch {
                        add(poller.requestFailed(error.description, at: clock.now()))
                    }
                    await flushStatuses()
                case .sendCancel(let id):
                    // The cancel answers the job's status (esriJobCancelling, or already final): reported as a poll's.
                    do {
                        let answer = try await client.cancelJob(id)
                        add(poller.received(answer, at: clock.now()))
                    } catch {
                        add(poller.requestFailed("cancel: \(error.description)", at: clock.now()))
                    }
                    await flushStatuses()
                case .fetchResults(let id, let names):
                    guard !cancel.isFired else { continue }
                    let name = names.contains(job.resultName) ? job.resultName : names.first
                    guard let name else { continue }
                    resultName = name
                    let set: GPFeatureRecordSet
                    do {
                        let parameter = try await client.result(id, parameter: name)
                        set = try GPFeatureRecordSet(json: parameter.value)
                    } catch let error as GPRESTError {
                        await flushStatuses()
                        throw AnalysisFailure("result \(name) from \(client.displayURL): \(error.description)")
                    } catch {
                        await flushStatuses()
                        throw AnalysisFailure(String(describing: error))
                    }
                    await flushStatuses()
                    resultWKID = set.wkid
                    var start = 0
                    while start < set.features.count {
                        let end = min(start + 1024, set.features.count)
                        let batch = Array(set.features[start..<end])
                        for feature in batch {
                            if let bin = feature.attributes["Gi_Bin"]?.intValue { bins[Int(bin)] += 1 }
                        }
                        await context.emit(batch)
                        start = end
                    }
                    delivered = set.features.count
                case .finished(let final):
                    ending.status = final
                case .giveUp(let reason):
                    ending.reason = reason
                case .statusChanged, .newMessages:
                    break
                }
            }
            await publish()
            await flushStatuses()
            if let reason = ending.reason {
                throw AnalysisFailure("job \(submitted.jobID) at \(client.displayURL): \(reason)")
            }
            switch ending.status {
            case .succeeded?:
                var summary = JSONObject([("jobId", .string(submitted.jobID)), ("jobStatus", .string(GPJobStatus.succeeded.rawValue)),
                                          ("task", .string(client.displayURL)), ("features", .int(Int64(delivered)))])
                if let query = job.query { summary.append(key: "query", value: .string(query)) }
                if let resultName { summary.append(key: "result", value: .string(resultName)) }
                if let resultWKID { summary.append(key: "outputWKID", value: .int(Int64(resultWKID))) }
                summary.append(key: "messages", value: .int(Int64(allMessages.count)))
                var binMembers = JSONObject()
                for bin in -3...3 { binMembers.append(key: String(bin), value: .int(Int64(bins[bin]))) }
                summary.append(key: "bins", value: .object(binMembers))
                summary.append(key: "hotSpots", value: .int(Int64(bins.hot)))
                summary.append(key: "coldSpots", value: .int(Int64(bins.cold)))
                return summary
            case .cancelled? where cancelSent:
                throw CancellationError()
            case let final?:
                let errors = allMessages.filter { $0.kind == .error }.map(\.description)
                let detail = errors.isEmpty ? "" : ": " + errors.joined(separator: "; ")
                throw AnalysisFailure("job \(submitted.jobID) ended \(final.rawValue)\(detail)")
            case nil:
                if cancel.isFired { throw CancellationError() }
                throw AnalysisFailure("job \(submitted.jobID): the conversation ended without a final status")
            }
        }
    }
}
