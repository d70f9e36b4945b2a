/// What one feature object carried, before it becomes an ``Observation``.
struct FeatureParts {
    var hasGeometry = false
    var hasAttributes = false
    var geometry = GeometryResult.none
    /// Aligned to the schema as it was when the attributes were read; nil for
    /// `"attributes": null` or none.
    var attributes: [AttributeValue]?
    /// Names the schema does not know, learned when the feature is committed.
    var learned: [LearnedAttribute] = []
    /// Where the geometry and attributes values are in the message, for ``Observation/sourceJSON``.
    var geometryRange: Range<Int>?
    var attributesRange: Range<Int>?
}

/// An attribute whose name is new to the schema.
struct LearnedAttribute {
    var name: String
    var value: AttributeValue

    /// The field type a learned field gets from its first value.
    var inferredType: FieldType {
        switch value {
        case .string, .null: return .string
        case .int: return .integer
        case .double: return .double
        case .bool: return .other("boolean")
        case .date: return .date
        }
    }
}

/// A feature's geometry as the decoder sees it.
enum GeometryResult {
    /// Absent, null, empty object or empty point.
    case none
    case point(Point)
    case nonPoint(NonPointKind)
}

/// The Esri geometry types other than point.
enum NonPointKind {
    case polyline, polygon, multipoint, envelope

    /// The kind as ``StreamMessage/nonPointGeometry(kind:_:)`` reports it.
    var name: String {
        switch self {
        case .polyline: return "polyline"
        case .polygon: return "polygon"
        case .multipoint: return "multipoint"
        case .envelope: return "envelope"
        }
    }
}

/// One point coordinate member.
package enum Coordinate {
    case absent
    /// null or "NaN".
    case empty
    case value(Double)

    var value: Double? {
        if case .value(let v) = self { return v }
        return nil
    }
}
