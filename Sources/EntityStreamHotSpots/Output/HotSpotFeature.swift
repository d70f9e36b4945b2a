/// One analysed feature of a hot-spot result: its location, its value and
/// its Gi* statistics (ArcGIS's output fields in brackets).
///
/// Stored compactly; absent z and p are kept as NaN internally and read as
/// nil. A value type.
public struct HotSpotFeature: Sendable, Hashable {
    /// The point, or the cell's centre, in the input's coordinates.
    public var x: Double
    public var y: Double
    /// The analysed value: the input value, or the count (`ICOUNT`, `JOIN_COUNT`).
    public var value: Double
    private var storedZ: Double
    private var storedP: Double
    /// `Gi_Bin`: −3…3 (see ``HotSpotResult``).
    public var bin: Int8
    /// `NNeighbors`: other features within the band (the feature itself not
    /// counted; coincident features are).
    public var neighborCount: Int32
    /// Weighted input: the record number of the input record. Collect Events:
    /// the record number of the first incident at the location. Fishnet: −1.
    public var recordNumber: Int32
    /// Fishnet: the cell's column and row; −1 otherwise.
    public var column: Int32
    public var row: Int32

    /// `GiZScore`; nil when undefined (no neighbour but itself).
    public var zScore: Double? {
        get { storedZ.isNaN ? nil : storedZ }
        set { storedZ = newValue ?? .nan }
    }

    /// `GiPValue` (two-sided normal); nil when z is.
    public var pValue: Double? {
        get { storedP.isNaN ? nil : storedP }
        set { storedP = newValue ?? .nan }
    }

    public init(x: Double, y: Double, value: Double, zScore: Double?, pValue: Double?, bin: Int8, neighborCount: Int32,
                recordNumber: Int32 = -1, column: Int32 = -1, row: Int32 = -1) {
        self.x = x
        self.y = y
        self.value = value
        storedZ = zScore ?? .nan
        storedP = pValue ?? .nan
        self.bin = bin
        self.neighborCount = neighborCount
        self.recordNumber = recordNumber
        self.column = column
        self.row = row
    }

    public static func == (a: HotSpotFeature, b: HotSpotFeature) -> Bool {
        a.x == b.x && a.y == b.y && a.value == b.value && a.zScore == b.zScore && a.pValue == b.pValue
            && a.bin == b.bin && a.neighborCount == b.neighborCount && a.recordNumber == b.recordNumber
            && a.column == b.column && a.row == b.row
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(x)
        hasher.combine(y)
        hasher.combine(value)
        hasher.combine(zScore)
        hasher.combine(recordNumber)
        hasher.combine(column)
        hasher.combine(row)
    }
}
