/// The type of one raster sample, named as the ArcGIS Runtime's `Pixel.Type`
/// attribute names it (`uint8`, `int16`, `float32`, …).
///
/// Every type's values up to 32 bits are exact as `Double` (32-bit integers
/// and float32 widen without rounding); 64-bit integers are exact as
/// `Double` up to 2⁵³ and are also read as integers (``SampleCoding``) so
/// cells report them exactly. A value type; `Sendable`.
public enum PixelType: String, Sendable, Hashable, CaseIterable {
    case uint8, int8, uint16, int16, uint32, int32, float32, float64, int64, uint64

    /// Bytes per sample.
    public var byteCount: Int {
        switch self {
        case .uint8, .int8: 1
        case .uint16, .int16: 2
        case .uint32, .int32, .float32: 4
        case .float64, .int64, .uint64: 8
        }
    }

    /// True for the floating-point types.
    public var isFloatingPoint: Bool { self == .float32 || self == .float64 }

    /// True for the signed integer types.
    public var isSignedInteger: Bool { self == .int8 || self == .int16 || self == .int32 || self == .int64 }

    /// True for the 64-bit integer types, whose values beyond 2⁵³ a `Double` rounds.
    public var isWideInteger: Bool { self == .int64 || self == .uint64 }

    /// The smallest and largest value of an integer type (nil for floating point).
    public var integerRange: ClosedRange<Double>? {
        switch self {
        case .uint8: 0...Double(UInt8.max)
        case .int8: Double(Int8.min)...Double(Int8.max)
        case .uint16: 0...Double(UInt16.max)
        case .int16: Double(Int16.min)...Double(Int16.max)
        case .uint32: 0...Double(UInt32.max)
        case .int32: Double(Int32.min)...Double(Int32.max)
        // The largest doubles below 2⁶³ and 2⁶⁴ (no double equals Int64.max or UInt64.max).
        case .int64: -0x1p63...0x1p63.nextDown
        case .uint64: 0...0x1p64.nextDown
        case .float32, .float64: nil
        }
    }

    /// TIFF's SampleFormat code: 1 unsigned integer, 2 signed integer, 3 IEEE float.
    public var tiffSampleFormat: UInt16 {
        if isFloatingPoint { return 3 }
        return isSignedInteger ? 2 : 1
    }

    /// The type a TIFF directory describes with `SampleFormat` and
    /// `BitsPerSample`, or nil when it is none of these ten (1/2/4/12/24-bit
    /// samples, complex types, 16-bit floats, "void").
    public init?(tiffSampleFormat format: UInt16, bitsPerSample bits: UInt16) {
        switch (format, bits) {
        case (1, 8): self = .uint8
        case (2, 8): self = .int8
        case (1, 16): self = .uint16
        case (2, 16): self = .int16
        case (1, 32): self = .uint32
        case (2, 32): self = .int32
        case (3, 32): self = .float32
        case (3, 64): self = .float64
        case (1, 64): self = .uint64
        case (2, 64): self = .int64
        default: return nil
        }
    }

    /// True when `value` is exactly representable in this type (NaN and the
    /// infinities are representable in the floating-point types only).
    public func canRepresent(_ value: Double) -> Bool {
        switch self {
        case .float64: return true
        case .float32: return value.isNaN || Double(Float(value)) == value
        default:
            guard let range = integerRange else { return false }
            return value.isFinite && value.rounded(.towardZero) == value && range.contains(value)
        }
    }
}
