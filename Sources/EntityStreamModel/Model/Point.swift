/// A point geometry as Esri JSON carries it: `x`, `y`, optional `z` and `m`,
/// and its spatial reference when known, as the reference's code
/// (``SpatialReference/code``: the WKID, or a negative code of this process
/// for a reference given only as WKT).
///
/// Stored compactly (40 bytes): an absent `z`/`m` is kept as NaN (Esri's own
/// "empty" value, so a NaN `z` reads back as nil) and an absent `wkid` as 0.
public struct Point: Sendable, Hashable {
    public var x: Double
    public var y: Double
    private var storedZ: Double
    private var storedM: Double
    private var storedWKID: Int32

    public var z: Double? {
        get { storedZ.isNaN ? nil : storedZ }
        set { storedZ = newValue ?? .nan }
    }

    public var m: Double? {
        get { storedM.isNaN ? nil : storedM }
        set { storedM = newValue ?? .nan }
    }

    /// The spatial reference's code: `spatialReference.wkid` (or `latestWkid`
    /// when only that is given), a WKT reference's code, or the stream's own
    /// reference when the message names none.
    public var wkid: Int? {
        get { storedWKID == 0 ? nil : Int(storedWKID) }
        set { storedWKID = newValue.flatMap { Int32(exactly: $0) } ?? 0 }
    }

    public init(x: Double, y: Double, z: Double? = nil, m: Double? = nil, wkid: Int? = nil) {
        self.x = x
        self.y = y
        self.storedZ = z ?? .nan
        self.storedM = m ?? .nan
        self.storedWKID = wkid.flatMap { Int32(exactly: $0) } ?? 0
    }

    public static func == (lhs: Point, rhs: Point) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.z == rhs.z && lhs.m == rhs.m && lhs.storedWKID == rhs.storedWKID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(x)
        hasher.combine(y)
        hasher.combine(z)
        hasher.combine(m)
        hasher.combine(storedWKID)
    }
}
