/// Reading and writing one sample of a ``PixelType`` in native byte order
/// (libtiff hands decoded blocks over in the host's byte order and takes
/// them that way).
extension PixelType {
    /// The sample at `offset` as a Double (exact for every type).
    @inline(__always) func load(from memory: UnsafeRawPointer, at offset: Int) -> Double {
        switch self {
        case .uint8: Double(memory.load(fromByteOffset: offset, as: UInt8.self))
        case .int8: Double(memory.load(fromByteOffset: offset, as: Int8.self))
        case .uint16: Double(memory.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        case .int16: Double(memory.loadUnaligned(fromByteOffset: offset, as: Int16.self))
        case .uint32: Double(memory.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        case .int32: Double(memory.loadUnaligned(fromByteOffset: offset, as: Int32.self))
        case .float32: Double(memory.loadUnaligned(fromByteOffset: offset, as: Float.self))
        case .float64: memory.loadUnaligned(fromByteOffset: offset, as: Double.self)
        case .int64: Double(memory.loadUnaligned(fromByteOffset: offset, as: Int64.self))
        case .uint64: Double(memory.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
    }

    /// A 64-bit integer sample exactly, as an `Int64` (nil for other types,
    /// and for a uint64 above `Int64.max`).
    @inline(__always) func loadWideInteger(from memory: UnsafeRawPointer, at offset: Int) -> Int64? {
        switch self {
        case .int64: memory.loadUnaligned(fromByteOffset: offset, as: Int64.self)
        case .uint64: Int64(exactly: memory.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default: nil
        }
    }

    /// Stores `value` at `offset`, converted as GDAL's `GDALCopyWords` does:
    /// integers rounded to nearest and clamped to the type's range (NaN → 0),
    /// float32 rounded. Never traps.
    func store(_ value: Double, to memory: UnsafeMutableRawPointer, at offset: Int) {
        switch self {
        case .float64: memory.storeBytes(of: value, toByteOffset: offset, as: Double.self)
        case .float32: memory.storeBytes(of: Float(value), toByteOffset: offset, as: Float.self)
        default:
            let range = integerRange ?? 0...0
            let clamped = value.isNaN ? 0 : min(max(value.rounded(), range.lowerBound), range.upperBound)
            switch self {
            case .uint8: memory.storeBytes(of: UInt8(clamped), toByteOffset: offset, as: UInt8.self)
            case .int8: memory.storeBytes(of: Int8(clamped), toByteOffset: offset, as: Int8.self)
            case .uint16: memory.storeBytes(of: UInt16(clamped), toByteOffset: offset, as: UInt16.self)
            case .int16: memory.storeBytes(of: Int16(clamped), toByteOffset: offset, as: Int16.self)
            case .uint32: memory.storeBytes(of: UInt32(clamped), toByteOffset: offset, as: UInt32.self)
            case .int64: memory.storeBytes(of: Int64(clamped), toByteOffset: offset, as: Int64.self)
            case .uint64: memory.storeBytes(of: UInt64(clamped), toByteOffset: offset, as: UInt64.self)
            default: memory.storeBytes(of: Int32(clamped), toByteOffset: offset, as: Int32.self)
            }
        }
    }
}
