import EntityStreamCore
import EntityStreamModel

/// Adds values to observations' events on the ingest path, batch by batch,
/// before they reach the bus (with `--enrich`, the raster cells under each
/// observation's point; see ``ObservationEnrichment``).
///
/// ``EntityStore/ingest(_:)`` calls ``enrich(_:)`` once per batch, before
/// it stores anything of that batch, with the point of every observation
/// message in order (nil when an observation has no geometry), and carries
/// `enrichments[i]` with the `observation` and `entity-received` events of
/// the i-th observation. The answer has exactly one value per point. It
/// never throws: a point the enricher cannot answer gets a value saying so
/// (a `null` cell), and each distinct problem is returned in `problems`,
/// which the store publishes as `error` events (source `store`). Sendable;
/// called from the store actor, one batch at a time.
public protocol ObservationEnricher: Sendable {
    func enrich(_ points: [Point?]) async -> ObservationEnrichments
}

/// One batch's enrichments: one per point, in order, and the problems met.
public struct ObservationEnrichments: Sendable {
    public var values: [ObservationEnrichment?]
    /// Readable descriptions of what went wrong (each names how many points it affected).
    public var problems: [String]

    public init(values: [ObservationEnrichment?], problems: [String] = []) {
        self.values = values
        self.problems = problems
    }
}
