import EntityStreamModel

/// What a whole feature file holds, as its tables would say it: the row
/// count, the extent of its points and the time extent of its time fields.
/// A streamed layer's description reports it (``FeatureFileScan``'s
/// `indexAtOpen`, when the pass that opened the file could tell it).
public struct FeatureFileIndex: Sendable, Equatable {
    public var rows: Int
    public var extent: Envelope?
    public var timeExtent: TimeExtent?

    public init(rows: Int = 0, extent: Envelope? = nil, timeExtent: TimeExtent? = nil) {
        self.rows = rows
        self.extent = extent
        self.timeExtent = timeExtent
    }
}
