/// The `"type"` of a `{type, feature}` message (case-sensitive).
enum MessageType {
    case create, update, delete

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        if LiteralBytes.equals(bytes, "create") {
            self = .create
        } else if LiteralBytes.equals(bytes, "update") {
            self = .update
        } else if LiteralBytes.equals(bytes, "delete") {
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
        case 8 where LiteralBytes.equals(key, "geometry"): self = .geometry
        case 10 where LiteralBytes.equals(key, "attributes"): self = .attributes
        case 4 where LiteralBytes.equals(key, "type"): self = .type
        case 7 where LiteralBytes.equals(key, "feature"): self = .feature
        case 6 where LiteralBytes.equals(key, "filter"): self = .filter
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
        } else if LiteralBytes.equals(key, "spatialReference") {
            self = .spatialReference
        } else if LiteralBytes.equals(key, "paths") || LiteralBytes.equals(key, "curvePaths") {
            self = .nonPoint(.polyline)
        } else if LiteralBytes.equals(key, "rings") || LiteralBytes.equals(key, "curveRings") {
            self = .nonPoint(.polygon)
        } else if LiteralBytes.equals(key, "points") {
            self = .nonPoint(.multipoint)
        } else if LiteralBytes.equals(key, "xmin") {
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
        if LiteralBytes.equals(key, "wkid") {
            self = .wkid
        } else if LiteralBytes.equals(key, "latestWkid") {
            self = .latestWkid
        } else {
            self = .other
        }
    }
}
