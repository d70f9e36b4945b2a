/// How many features fell in each `Gi_Bin` (−3…3).
public struct HotSpotBinCounts: Sendable, Hashable {
    private var counts = [Int](repeating: 0, count: 7)

    public init() {}

    /// The count for `bin` (0 outside −3…3).
    public subscript(bin: Int) -> Int {
        get { (-3...3).contains(bin) ? counts[bin + 3] : 0 }
        set { if (-3...3).contains(bin) { counts[bin + 3] = newValue } }
    }

    /// Hot spots (bins 1…3).
    public var hot: Int { counts[4] + counts[5] + counts[6] }
    /// Cold spots (bins −3…−1).
    public var cold: Int { counts[0] + counts[1] + counts[2] }
    /// Counts from bin −3 to 3.
    public var all: [Int] { counts }
}
