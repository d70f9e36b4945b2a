/// How a feature file is read: its format (sniffed when nil), the column
/// mapping, the layer's name and the largest file accepted. A plain value.
public struct FeatureLoadOptions: Sendable, Hashable {
    /// Force a format instead of recognising it (``FeatureFileFormat/sniff(_:fileName:)``).
    public var format: FeatureFileFormat?
    public var mapping: FeatureColumnMapping
    /// The table's name; nil uses the file's base name.
    public var name: String?
    /// Files larger than this are refused (the whole file is read into memory).
    public var maximumFileSize: Int

    /// Files in a format that is one JSON document (an Esri feature array,
    /// a FeatureSet, a GeoJSON FeatureCollection) larger than this are
    /// refused: such a document is parsed whole, in several times its size
    /// of memory, where the line formats stream.
    public var maximumDocumentSize: Int

    /// Whether the pass that opens a line file for streaming also keeps what
    /// a streamed layer's index needs (the points' range, each field's date
    /// range), so that the layer need not read the file again. Off by default:
    /// a one-shot query or statistics pass needs none of it and pays for it per value.
    public var indexesAtOpen = false

    /// 4 GiB: far beyond what fits a test machine's memory as rows anyway.
    public static let defaultMaximumFileSize = 4 << 30
    /// 512 MiB: a document that size takes a few GB to load.
    public static let defaultMaximumDocumentSize = 512 << 20

    public init(format: FeatureFileFormat? = nil, mapping: FeatureColumnMapping = FeatureColumnMapping(), name: String? = nil,
                maximumFileSize: Int = FeatureLoadOptions.defaultMaximumFileSize,
                maximumDocumentSize: Int = FeatureLoadOptions.defaultMaximumDocumentSize) {
        self.format = format
        self.mapping = mapping
        self.name = name
        self.maximumFileSize = maximumFileSize
        self.maximumDocumentSize = maximumDocumentSize
    }
}
