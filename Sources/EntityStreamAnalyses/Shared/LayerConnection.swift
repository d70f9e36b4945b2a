import EntityStreamCore
import EntityStreamModel
import EntityStream
import EntityStreamFeatures

/// A ``FeatureLayerClient`` made for one analysis job from the session's
/// remote options (token, TLS trust, HTTP limits, clock), whose status
/// changes go out as the job's `status` events (source `layer <url>`) as
/// they happen, awaited by the client before its request goes on, so they
/// come out in order with the job's results. Sendable.
struct LayerConnection: Sendable {
    let client: FeatureLayerClient

    /// - Throws: ``AnalysisFailure`` for a URL the client refuses.
    init(layerURL: String, context: AnalysisContext) throws(AnalysisFailure) {
        let environment = context.environment
        var options = FeatureLayerClientOptions()
        options.http = environment.remote.http
        options.clock = environment.clock
        if let token = environment.remote.token { options.tokenSource = StaticTokenSource(token) }
        options.onStatus = context.statusRelay(service: "layer")
        do { client = try FeatureLayerClient(layerURL: layerURL, options: options) } catch { throw AnalysisFailure(error.description) }
    }
}
