/// Byte comparison of decoded key bytes against ASCII literals.
enum EsriKeyBytes {
    @inline(__always)
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            for i in 0..<expected.count where bytes[i] != expected[i] { return false }
            return true
        }
    }
}

/// The `"type"` of a `{type, feature}` message (case-sensitive).
enum MessageType {
    case create, update, delete

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        if EsriKeyBytes.equals(bytes, "create") {
            self = .create
        } else if EsriKeyBytes.equals(bytes, "update") {
            self = .update
        } else if EsriKeyBytes.equals(bytes, "delete") {
            self = .delete
        } else {
            return nil
        }
    }
}

/// Members the decoder understands in a message or feature object (case-sensitive).
enum MessageKey {
    case geometry, attributes, type, feature, filter, other

    @inline(__always)
    init(classifying key: UnsafeBufferPointer<UInt8>) {
        switch key.count {
        case 8 where EsriKeyBytes.equals(key, "geometry"): self = .geometry
        case 10 where EsriKeyBytes.equals(key, "attributes"): self = .attributes
        case 4 where EsriKeyBytes.equals(key, "type"): self = .type
        case 7 where EsriKeyBytes.equals(key, "feature"): self = .feature
        case 6 where EsriKeyBytes.equals(key, "filter"): self = .filter
        default: self = .other
        }
    }
}

/// Members the decoder understands in a geometry object (case-sensitive).
enum GeometryKey {
    case x, y, z, m, spatialReference, nonPoint(NonPointKind), other

    @inline(__always)
    init(classifying key: UnsafeBufferPointer<UInt8>) {
        if key.count == 1 {
            switch key[0] {
            case 0x78: self = .x
            case 0x79: self = .y
            case 0x7A: self = .z
            case 0x6D: self = .m
            default: self = .other
            }
        } else if EsriKeyBytes.equals(key, "spatialReference") {
            self = .spatialReference
        } else if EsriKeyBytes.equals(key, "paths") || EsriKeyBytes.equals(key, "curvePaths") {
            self = .nonPoint(.polyline)
        } else if EsriKeyBytes.equals(key, "rings") || EsriKeyBytes.equals(key, "curveRings") {
            self = .nonPoint(.polygon)
        } else if EsriKeyBytes.equals(key, "points") {
            self = .nonPoint(.multipoint)
        } else if EsriKeyBytes.equals(key, "xmin") {
            self = .nonPoint(.envelope)
        } else {
            self = .other
        }
    }
}

/// Members the decoder understands in a spatialReference object (case-sensitive).
enum SpatialReferenceKey {
    case wkid, latestWkid, other

    @inline(__always)
    init(classifying key: UnsafeBufferPointer<UInt8>) {
        if EsriKeyBytes.equals(key, "wkid") {
            self = .wkid
        } else if EsriKeyBytes.equals(key, "latestWkid") {
            self = .latestWkid
        } else {
            self = .other
        }
    }
}
