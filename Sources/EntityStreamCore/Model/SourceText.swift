/// Where an observation's geometry and attributes are in the message that
/// carried it: a reference to the received bytes (shared with every other
/// observation of the same message or batch, never copied) and two ranges.
///
/// The ranges hold validated JSON on one line (no line breaks), so output
/// may copy them verbatim. Kept small (offsets as 32-bit values) because
/// observations are copied often.
public struct SourceText: Sendable {
    public let bytes: [UInt8]
    private let geometryStart: Int32
    private let geometryEnd: Int32
    private let attributesStart: Int32
    private let attributesEnd: Int32

    /// Nil when a range does not fit 32-bit offsets (messages beyond 2 GiB).
    public init?(bytes: [UInt8], geometry: Range<Int>?, attributes: Range<Int>?) {
        guard bytes.count < Int(Int32.max) else { return nil }
        self.bytes = bytes
        geometryStart = Int32(geometry?.lowerBound ?? -1)
        geometryEnd = Int32(geometry?.upperBound ?? -1)
        attributesStart = Int32(attributes?.lowerBound ?? -1)
        attributesEnd = Int32(attributes?.upperBound ?? -1)
    }

    /// The `geometry` member's value, or nil when the feature had none.
    public var geometry: Range<Int>? { geometryStart < 0 ? nil : Int(geometryStart)..<Int(geometryEnd) }
    /// The `attributes` member's value, or nil when the feature had none.
    public var attributes: Range<Int>? { attributesStart < 0 ? nil : Int(attributesStart)..<Int(attributesEnd) }
}
