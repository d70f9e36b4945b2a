import EntityStreamCore
import EntityStreamModel

/// What a running ``AnalysisJob`` reports through: its results and progress
/// (published as `analysis` events, in order with the stream), the status of
/// a remote service it uses, and a snapshot of the entity store.
///
/// Every method may wait under back-pressure (results reach stdout at the
/// pace it is read). Reports after the job has ended are refused by the
/// runtime. Sendable: a job may report from any of its tasks.
public struct AnalysisContext: Sendable {
    /// The job's id (the `id` of the command that started it).
    public let job: JSONValue
    /// The command's name, e.g. `query-observations`.
    public let command: String
    /// Resources the session offers (the store, remote-service options, …).
    public let environment: AnalysisEnvironment
    let runtime: AnalysisRuntime

    /// Publishes features as `result` lines, in order.
    public func emit(_ features: [AnalysisFeature]) async {
        await emit(results: features.map(AnalysisResult.feature))
    }

    /// Publishes results (features, observations, statistics records,
    /// identify answers) as `result` lines, in order.
    public func emit(results: [AnalysisResult]) async {
        await runtime.report(results.map { AnalysisEvent(job: job, command: command, result: $0) }, for: job)
    }

    /// Publishes a `progress` line (e.g. a scan's rows and percent, a layer's pages, a job status).
    public func progress(_ progress: some AnalysisProgress) async {
        await runtime.report([AnalysisEvent(job: job, command: command, content: .progress(AnyAnalysisProgress(progress)))], for: job)
    }

    /// Publishes a `status` event about a remote service this job uses, in
    /// the shape the stream connection uses, with `source` naming it.
    public func status(_ change: ConnectionStatusChange) async {
        await runtime.publishStatus(change, for: job)
    }

    /// The relay for a remote client's status changes
    /// (``FeatureLayerClientOptions/onStatus``, ``GeoprocessingClientOptions/onStatus``):
    /// each becomes a `status` event with `source` `<service> <url>` (the
    /// client's URL, no token), published before the client goes on.
    public func statusRelay(service: String) -> ConnectionStatusBroadcaster.Relay {
        { change in
            var change = change
            change.source = "\(service) \(change.url ?? "")"
            await self.status(change)
        }
    }

    /// A consistent copy of the entity store as of now (the stream goes on
    /// while the job reads it); its stream status and as-of time go into the
    /// job's summary. Throws ``AnalysisFailure`` when the session has no store.
    public func snapshot() async throws -> StoreSnapshot {
        guard let store = environment.store else {
            throw AnalysisFailure("\(command) needs a running stream's entity store (use it as a control command of connect, replay or the demo)")
        }
        var snapshot = await store.snapshot()
        snapshot.streamStatus = await environment.streamStatus?()
        await runtime.noteSnapshot(snapshot, for: job)
        return snapshot
    }

    /// Throws `CancellationError` when the job has been cancelled.
    public func checkCancellation() throws {
        try Task.checkCancellation()
    }
}
