import EntityStreamModel
import EntityStreamProjection

/// A stream filter (`{"filter":…}`, `set-filter`, `--geometry`) that cannot be
/// understood or applied, by what is wrong; each case carries the member or
/// text at fault and ``description`` says it in one sentence.
public enum FilterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The geometry is JSON text that does not parse.
    case geometryJSON(JSONError)
    /// The geometry text is not four or five comma-separated parts (the text).
    case envelopePartCount(String)
    /// One of the envelope text's first four parts (`coordinate`: xmin, ymin, xmax, ymax) is not a finite number.
    case envelopeNotANumber(String, coordinate: String, part: String)
    /// The envelope text's fifth part is not a spatial reference PROJ knows.
    case envelopeSpatialReference(String, ProjectionError)
    /// The geometry is neither an envelope object nor envelope text.
    case notAnEnvelope
    /// An envelope object's member (xmin, ymin, xmax, ymax) is missing or not a number.
    case envelopeMember(String)
    /// An envelope object's `spatialReference` is not one PROJ knows.
    case envelopeObjectSpatialReference(ProjectionError)
    /// The envelope (its text, or "envelope" for an object) has no area.
    case envelopeWithoutArea(String)
    /// The filter is neither an object nor null.
    case notAnObject
    /// `where` is not a string.
    case whereNotAString
    /// An element of the `outFields` array is not a field name.
    case outFieldsElement(JSONValue)
    /// `outFields` is neither a string nor an array.
    case outFieldsNotAList
    /// `outSR` is not a spatial reference.
    case outSpatialReference(ProjectionError)
    /// `spatialRel` is one that cannot be evaluated (only intersects can).
    case unsupportedSpatialRelationship(JSONValue)
    /// `geometryType` is not an envelope.
    case unsupportedGeometryType(JSONValue)
    /// `inSR` is not a spatial reference.
    case inSpatialReference(ProjectionError)
    /// A member the filter does not have (its name).
    case unknownMember(String)
    /// `inSR` names one spatial reference and the geometry another (WKIDs).
    case inSpatialReferenceContradicts(inSR: Int, geometry: Int)
    /// The `outSR` cannot be reached from the source's spatial reference.
    case outSpatialReferenceUnusable(ProjectionError)
    /// The envelope's spatial reference cannot be reached from the source's.
    case geometrySpatialReferenceUnusable(ProjectionError)
    /// `outFields` names a field the schema lacks (the name and the schema's fields).
    case unknownOutField(String, fields: [String])

    public var description: String {
        switch self {
        case .geometryJSON(let error): return "geometry: \(error)"
        case .envelopePartCount(let text): return "geometry '\(text)': expected xmin,ymin,xmax,ymax[,wkid]"
        case .envelopeNotANumber(let text, let coordinate, let part): return "geometry '\(text)': \(coordinate) '\(part)' is not a number"
        case .envelopeSpatialReference(let text, let error): return "geometry '\(text)': \(error)"
        case .notAnEnvelope: return "geometry must be an envelope object or xmin,ymin,xmax,ymax"
        case .envelopeMember(let name): return "geometry: '\(name)' is missing or not a number"
        case .envelopeObjectSpatialReference(let error): return "geometry: spatialReference: \(error)"
        case .envelopeWithoutArea(let text): return "geometry '\(text)': the envelope has no area (need xmin < xmax and ymin < ymax)"
        case .notAnObject: return "filter must be an object or null"
        case .whereNotAString: return "filter 'where' must be a string"
        case .outFieldsElement(let element): return "filter 'outFields' must list field names, not \(element)"
        case .outFieldsNotAList: return "filter 'outFields' must be a comma-separated string or an array"
        case .outSpatialReference(let error): return "filter 'outSR': \(error)"
        case .unsupportedSpatialRelationship(let value): return "filter 'spatialRel' \(value) is not supported (only esriSpatialRelIntersects)"
        case .unsupportedGeometryType(let value): return "filter 'geometryType' \(value) is not supported (only esriGeometryEnvelope)"
        case .inSpatialReference(let error): return "filter 'inSR': \(error)"
        case .unknownMember(let name):
            return "unknown filter member '\(name)' (expected where, geometry, outFields, outSR, inSR, spatialRel, geometryType)"
        case .inSpatialReferenceContradicts(let inSR, let geometry):
            return "filter 'inSR' \(Self.name(inSR)) contradicts the geometry's spatial reference \(Self.name(geometry))"
        case .outSpatialReferenceUnusable(let error): return "outSR: \(error)"
        case .geometrySpatialReferenceUnusable(let error): return "geometry: \(error)"
        case .unknownOutField(let name, let fields): return "unknown field '\(name)' in outFields (fields: \(fields.joined(separator: ", ")))"
        }
    }

    private static func name(_ wkid: Int) -> String {
        SpatialReference(code: wkid).map(String.init(describing:)) ?? "?"
    }
}
