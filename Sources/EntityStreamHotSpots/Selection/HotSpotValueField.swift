import EntityStreamCore
import EntityStreamModel

/// The numeric field a weighted hot-spot analysis reads, resolved against a
/// schema (case-insensitively, as ArcGIS field names are).
enum HotSpotValueField {
    /// The index of `name`; throws naming the field when it is unknown or not numeric.
    static func resolve(_ name: String, in schema: Schema) throws(HotSpotSelectionError) -> Int {
        guard let index = schema.index(ofField: name) else {
            throw .unknownValueField(name: name, fields: schema.fields.map(\.name))
        }
        let type = schema.fields[index].type
        guard type.isInteger || type.isFloatingPoint else {
            throw .nonNumericValueField(name: schema.fields[index].name, type: type.esriName)
        }
        return index
    }

    /// A value as a number: integers and reals; nil for null (a missing value).
    /// Any other kind reads as NaN, which the input counts as invalid.
    @inline(__always)
    static func number(_ value: AttributeValue) -> Double? {
        switch value {
        case .null: return nil
        case .int(let whole): return Double(whole)
        case .double(let real): return real
        case .bool(let flag): return flag ? 1 : 0
        default: return .nan
        }
    }
}
