import EntityStreamCore
import EntityStreamFeatures

/// A feature layer as the server answers it: a fixed one (a loaded file),
/// or one whose rows change while the server runs (a fleet's latest
/// reports, a relay's live store), answered as of each request.
///
/// ``layer(answering:)`` returns the layer to run one query on: the whole
/// layer, or — for a large live layer — a table holding at least every row
/// the query can select, with the same object ids, so that the query
/// engine's answer on it (selection, order, paging, statistics, extents)
/// is its answer on the whole layer.
protocol LayerSource: Sendable {
    /// The layer's description (`…/FeatureServer/0?f=json`) as of now.
    func currentDescription() async -> LayerDescription
    /// The table to answer `query` from, as of now; throws the query's error when it cannot be answered.
    func layer(answering query: FeatureQuery) async throws(FeatureQueryError) -> SimulatedLayer
    /// The answer to `query` when the source answers it without a table
    /// (a layer read from a file, ``StreamedFileLayer``); nil (the default):
    /// the engine answers on ``layer(answering:)``.
    func answer(_ query: FeatureQuery) async throws -> FeatureQueryResult?
}

extension LayerSource {
    func answer(_ query: FeatureQuery) async throws -> FeatureQueryResult? { nil }
}

extension SimulatedLayer: LayerSource {
    func currentDescription() async -> LayerDescription { description }
    func layer(answering query: FeatureQuery) async throws(FeatureQueryError) -> SimulatedLayer { self }
}

extension FleetLatestArchive: LayerSource {
    func currentDescription() async -> LayerDescription { layer().description }
    func layer(answering query: FeatureQuery) async throws(FeatureQueryError) -> SimulatedLayer { layer() }
}
