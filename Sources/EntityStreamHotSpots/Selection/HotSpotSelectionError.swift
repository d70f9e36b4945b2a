/// Why the records for a hot-spot analysis could not be selected, by what
/// was wrong; ``description`` is a sentence fit for a user.
public enum HotSpotSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The table (named) has no point geometry.
    case noGeometry(table: String)
    /// The where clause does not compile against the data: the reason.
    case invalidWhere(String)
    /// A time extent was asked of a table (named) without a time field.
    case noTimeField(table: String)
    /// The value field is not a field of the data (the data's fields listed).
    case unknownValueField(name: String, fields: [String])
    /// The value field is of this Esri type, not a number.
    case nonNumericValueField(name: String, type: String)
    /// The points' spatial reference (or the processing one) cannot be used: the reason.
    case spatialReference(String)
    /// The observations carry more than one spatial reference (the first and another, "none" for none).
    case mixedSpatialReferences(first: String, other: String)

    public var description: String {
        switch self {
        case .noGeometry(let table):
            return "'\(table)' is a table without geometry: hot spots need points (map the x and y columns)"
        case .invalidWhere(let reason):
            return "where: \(reason)"
        case .noTimeField(let table):
            return "a time extent needs a time field, and '\(table)' has none (map one: time=COLUMN)"
        case .unknownValueField(let name, let fields):
            return "value field '\(name)' is not a field of the data (fields: \(fields.joined(separator: ", ")))"
        case .nonNumericValueField(let name, let type):
            return "value field '\(name)' is \(type), not a number"
        case .spatialReference(let reason):
            return reason
        case .mixedSpatialReferences(let first, let other):
            return "the observations are in more than one spatial reference (\(first) and \(other)): hot spots need one"
        }
    }
}
