import EntityStreamModel
/// What the entity store holds, as a value a snapshot keeps: the entities
/// with their latest observation and history, and the interned strings the
/// history refers to. Scans, queries and statistics read it.
///
/// Taking it from an ``EntityStoreState`` is O(1) and leaves out the
/// store's purge bookkeeping; afterwards the store copies only what it
/// changes: the entity table and, per track it appends to, a few words
/// (history chunks are shared and append-only, see ``ChunkStorage``).
public struct StoreContents: Sendable {
    public let schema: Schema
    let entities: [EntityStoreState.Entity]
    let slotsByTrack: TrackIndex
    /// Interned strings by id (packed words refer to them).
    let strings: [String]
    /// Entities held.
    public let entityCount: Int
    /// Observations held.
    public let observationCount: Int
}
