import EntityStreamCore
import EntityStreamModel
import EntityStreamProjection
import EntityStreamWhere

/// A query that cannot be run as given, by what is wrong: each case names
/// the REST parameter at fault (``parameter``) and carries the values that
/// make the problem (the text given, the limit, the inner error).
///
/// ``arcGISError`` is what a server answers (code 400, the parameter named
/// in `details`); ``description`` reads `'time' parameter is invalid: the end … is before the start …`.
/// Cases with a `parameter` label carry the parameter's name as the request
/// spelled it (names are case-insensitive) or the one of several it concerns.
/// A plain value.
public enum FeatureQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: Reading the parameters

    /// A parameter given twice with different values (the first and the second).
    case givenTwice(parameter: String, first: String, second: String)
    /// An entry of `objectIds` that is not a whole number.
    case notObjectID(parameter: String, String)
    /// A `time` value that is not an extent.
    case time(parameter: String, TimeExtentError)
    /// A `geometry` that is a polyline or multipoint.
    case unsupportedGeometry(parameter: String)
    /// A `geometry` that is not an envelope either.
    case envelope(parameter: String, FilterError)
    /// A `spatialRel` other than the two supported (the value given).
    case unsupportedSpatialRelationship(parameter: String, String)
    /// A `maxRecordCountFactor` above 5.
    case maxRecordCountFactorOutOfRange(parameter: String, Int)
    /// An `f` other than json, pjson or geojson.
    case unsupportedFormat(parameter: String, String)
    /// `having` and `havingClause` given with different values (the earlier and this one).
    case havingDisagrees(parameter: String, first: String, second: String)
    /// A `geometryPrecision` above 17.
    case geometryPrecisionOutOfRange(parameter: String, Int)
    /// A `resultType` other than none, standard or tile.
    case unknownResultType(parameter: String, String)
    /// A `distance` that is not a finite number ≥ 0.
    case notDistance(parameter: String, String)
    /// A `units` value that is not a known distance unit.
    case unknownUnit(parameter: String, String)
    /// `geometryType` esriGeometryEnvelope with a point or polygon geometry (`"point"` or `"polygon"`).
    case geometryNotEnvelope(actual: String)
    /// `geometryType` esriGeometryPoint with a geometry that is not a point.
    case geometryNotPoint
    /// `geometryType` esriGeometryPolygon with a geometry that has no rings.
    case geometryNotPolygon
    /// A `geometryType` other than envelope, point or polygon.
    case unsupportedGeometryType(String)
    /// `inSR` (a code) naming another spatial reference than the geometry's own.
    case inSRContradictsGeometry(inSR: Int, geometry: Int)
    /// `having` (or `havingClause`) without `outStatistics`.
    case havingWithoutStatistics(parameter: String)
    /// `distance` without a geometry.
    case distanceWithoutGeometry
    /// A polygon with no ring.
    case polygonWithoutRings(parameter: String)
    /// A polygon ring (its index) with fewer than 3 vertices.
    case ringTooShort(parameter: String, ring: Int)
    /// A polygon with more vertices than ``FeatureQuery/maximumPolygonVertices``.
    case tooManyVertices(parameter: String, maximum: Int)
    /// A polygon ring (its index) with a vertex that is not two finite numbers.
    case badVertex(parameter: String, ring: Int)
    /// A JSON point whose x or y is not a finite number.
    case pointNotNumbers(parameter: String)
    /// An `x,y` point whose parts are not finite numbers (the text).
    case notPoint(parameter: String, String)
    /// A boolean parameter that is neither true nor false (the text).
    case notBoolean(parameter: String, String)
    /// An integer parameter that is not a whole number ≥ `minimum` (the text).
    case notWholeNumber(parameter: String, String, minimum: Int)
    /// A spatial reference PROJ cannot use: unknown, unparsable, or no operation between two.
    case projection(parameter: String, ProjectionError)

    // MARK: orderByFields

    /// An empty entry in an `orderByFields` list (the whole list).
    case emptyOrderEntry(parameter: String, list: String)
    /// An `orderByFields` entry with more than two words.
    case notOrderEntry(parameter: String, String)
    /// An `orderByFields` direction that is not ASC or DESC, and its entry.
    case notDirection(parameter: String, String, entry: String)

    // MARK: outStatistics

    /// An `outStatistics` entry that is not an object.
    case statisticNotObject(JSONValue)
    /// An `outStatistics` entry without `statisticType`.
    case missingStatisticType
    /// A `statisticType` this library does not know.
    case unknownStatisticType(String)
    /// A statistic (its type as given) without `onStatisticField`.
    case missingStatisticField(type: String)
    /// A percentile statistic (its type as given) without a fraction in 0...1.
    case missingPercentile(type: String)
    /// An `outStatistics` value that is not JSON.
    case outStatisticsNotJSON(JSONError)
    /// An `outStatistics` value that is not a non-empty array.
    case outStatisticsNotList
    /// A statistics query with an empty `outStatistics`.
    case noStatistics
    /// A `statisticType` the server's statistics engine does not compute.
    case statisticTypeNotSupported(String)
    /// A statistics engine's refusal (its own error), with the parameter a server names.
    case statistics(parameter: String, Underlying)
    /// A statistics query forming more groups than `maximum`.
    case tooManyGroups(parameter: String, maximum: Int)
    /// A statistics query on a server with no statistics engine.
    case statisticsUnsupported(parameter: String)
    /// A statistics engine that cannot aggregate a layer read in parts.
    case partialAggregationUnsupported(parameter: String)
    /// `returnDistinctValues` without `outFields` naming fields.
    case distinctWithoutOutFields
    /// With `returnDistinctValues`, an `orderByFields` field not among the `outFields`.
    case distinctOrderNotInOutFields(field: String, outFields: [String])

    // MARK: quantizationParameters

    /// `quantizationParameters` is not a JSON object.
    case quantizationNotObject
    /// A quantization `mode` other than view or edit.
    case quantizationMode(String)
    /// A quantization `originPosition` other than upperLeft or bottomLeft.
    case quantizationOrigin(String)
    /// `quantizationParameters` without an extent.
    case quantizationWithoutExtent
    /// A quantization extent that is not an envelope.
    case quantizationExtent(FilterError)
    /// A quantization tolerance that is not a positive number.
    case quantizationTolerance
    /// A quantization extent (its code) in another spatial reference than the output (its code).
    case quantizationReference(extent: Int, output: Int)

    // MARK: Running on a layer

    /// A field name (`outFields`, `orderByFields`) the layer does not have, with the layer's fields.
    case unknownField(parameter: String, String, fields: [String])
    /// `f=geojson` with an `outSR` other than WGS84.
    case geoJSONNotWGS84(SpatialReference)
    /// An output spatial reference asked of a layer whose own is unknown.
    case unknownLayerReference(parameter: String, target: SpatialReference)
    /// A `where` clause that does not parse or names unknown fields.
    case whereClause(WhereClauseError)
    /// `text` on a layer with no string field to search.
    case noDisplayField
    /// `text` that makes no valid search.
    case textSearch(WhereClauseError)
    /// `time` on a layer that is not time-aware.
    case notTimeAware
    /// `geometry` on a table.
    case noGeometry
    /// A polygon vertex PROJ cannot bring into the layer's spatial reference.
    case vertexOutside(SpatialReference)
    /// A geometry PROJ cannot bring into the layer's spatial reference.
    case geometryOutside(SpatialReference)
    /// `units` the layer's spatial reference (its code, if known) cannot be measured in.
    case unitNotConvertible(layerReference: Int?, FeatureQuery.DistanceUnit)
    /// An ordered answer that would keep more than `maximum` rows of a layer read from a file.
    case orderedAnswerTooLarge(parameter: String, maximum: Int)
    /// More than `maximum` ids to order on a layer read from a file.
    case tooManyIDsToOrder(maximum: Int)
    /// A query that would read more than `maximum` of the `observations` a live store holds.
    case storeQueryTooLarge(maximum: Int, observations: Int)

    /// The parameter's REST name (`where`, `time`, `outFields`, …).
    public var parameter: String {
        switch self {
        case .givenTwice(let parameter, _, _), .notObjectID(let parameter, _), .time(let parameter, _), .unsupportedGeometry(let parameter),
             .envelope(let parameter, _), .unsupportedSpatialRelationship(let parameter, _), .maxRecordCountFactorOutOfRange(let parameter, _),
             .unsupportedFormat(let parameter, _), .havingDisagrees(let parameter, _, _), .geometryPrecisionOutOfRange(let parameter, _),
             .unknownResultType(let parameter, _), .notDistance(let parameter, _), .unknownUnit(let parameter, _),
             .havingWithoutStatistics(let parameter), .polygonWithoutRings(let parameter), .ringTooShort(let parameter, _),
             .tooManyVertices(let parameter, _), .badVertex(let parameter, _), .pointNotNumbers(let parameter), .notPoint(let parameter, _),
             .notBoolean(let parameter, _), .notWholeNumber(let parameter, _, _), .projection(let parameter, _),
             .emptyOrderEntry(let parameter, _), .notOrderEntry(let parameter, _), .notDirection(let parameter, _, _),
             .statistics(let parameter, _), .tooManyGroups(let parameter, _), .statisticsUnsupported(let parameter),
             .partialAggregationUnsupported(let parameter), .unknownField(let parameter, _, _), .unknownLayerReference(let parameter, _),
             .orderedAnswerTooLarge(let parameter, _):
            return parameter
        case .geometryNotEnvelope, .geometryNotPoint, .geometryNotPolygon, .unsupportedGeometryType: return "geometryType"
        case .inSRContradictsGeometry, .vertexOutside, .geometryOutside: return "inSR"
        case .distanceWithoutGeometry: return "distance"
        case .statisticNotObject, .missingStatisticType, .unknownStatisticType, .missingStatisticField, .missingPercentile,
             .outStatisticsNotJSON, .outStatisticsNotList, .noStatistics, .statisticTypeNotSupported:
            return "outStatistics"
        case .distinctWithoutOutFields: return "outFields"
        case .distinctOrderNotInOutFields, .tooManyIDsToOrder: return "orderByFields"
        case .quantizationNotObject, .quantizationMode, .quantizationOrigin, .quantizationWithoutExtent, .quantizationExtent,
             .quantizationTolerance, .quantizationReference:
            return "quantizationParameters"
        case .geoJSONNotWGS84: return "outSR"
        case .whereClause, .storeQueryTooLarge: return "where"
        case .noDisplayField, .textSearch: return "text"
        case .notTimeAware: return "time"
        case .noGeometry: return "geometry"
        case .unitNotConvertible: return "units"
        }
    }

    /// Why the parameter is refused, in words (``description`` after the parameter).
    public var reason: String {
        switch self {
        case .givenTwice(_, let first, let second): return "given twice with different values ('\(first)' and '\(second)')"
        case .notObjectID(_, let text): return "'\(text)' is not an object id (a whole number)"
        case .time(_, let error): return error.description
        case .unsupportedGeometry:
            return "only envelope, point and polygon geometries are supported ({\"xmin\":…,\"ymin\":…,\"xmax\":…,\"ymax\":…}, xmin,ymin,xmax,ymax, {\"x\":…,\"y\":…}, x,y or {\"rings\":[…]})"
        case .envelope(_, let error): return error.description
        case .unsupportedSpatialRelationship(_, let text):
            return "'\(text)' is not supported (only esriSpatialRelIntersects and esriSpatialRelEnvelopeIntersects)"
        case .maxRecordCountFactorOutOfRange(_, let factor): return "must be between 1 and 5, not \(factor)"
        case .unsupportedFormat(_, let text): return "'\(text)' is not supported (json, pjson or geojson)"
        case .havingDisagrees(_, let first, let second): return "having and havingClause (its alias) disagree ('\(first)' and '\(second)')"
        case .geometryPrecisionOutOfRange(_, let digits): return "must be between 0 and 17 decimal places, not \(digits)"
        case .unknownResultType(_, let text): return "'\(text)' is not none, standard or tile"
        case .notDistance(_, let text): return "'\(text)' is not a distance (a number ≥ 0)"
        case .unknownUnit(_, let text):
            return "'\(text)' is not a unit (\(FeatureQuery.DistanceUnit.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .geometryNotEnvelope(let actual): return "esriGeometryEnvelope, but the geometry is a \(actual)"
        case .geometryNotPoint: return "esriGeometryPoint, but the geometry is not a point"
        case .geometryNotPolygon: return "esriGeometryPolygon, but the geometry has no rings"
        case .unsupportedGeometryType(let text):
            return "'\(text)' is not supported (esriGeometryEnvelope, esriGeometryPoint or esriGeometryPolygon)"
        case .inSRContradictsGeometry(let inSR, let own):
            return "\(SpatialReference(code: inSR).map(String.init(describing:)) ?? "?") contradicts the geometry's spatial reference "
                + "\(SpatialReference(code: own).map(String.init(describing:)) ?? "?")"
        case .havingWithoutStatistics: return "is allowed only with outStatistics"
        case .distanceWithoutGeometry: return "needs a geometry to measure from"
        case .polygonWithoutRings: return "a polygon needs at least one ring ({\"rings\":[[[x,y],…]]})"
        case .ringTooShort(_, let ring): return "ring \(ring) needs at least 3 vertices"
        case .tooManyVertices(_, let maximum): return "the polygon has more than \(maximum) vertices"
        case .badVertex(_, let ring): return "ring \(ring) has a vertex that is not [x, y] numbers"
        case .pointNotNumbers: return "the point's x and y must be numbers"
        case .notPoint(_, let text): return "'\(text)' is not a point (x,y)"
        case .notBoolean(_, let text): return "'\(text)' is not true or false"
        case .notWholeNumber(_, let text, let minimum): return "'\(text)' is not a whole number ≥ \(minimum)"
        case .projection(_, let error): return error.description
        case .emptyOrderEntry(_, let list): return "an empty entry in '\(list)'"
        case .notOrderEntry(_, let entry): return "'\(entry)' is not 'FIELD [ASC|DESC]'"
        case .notDirection(_, let direction, let entry): return "'\(direction)' is not ASC or DESC (in '\(entry)')"
        case .statisticNotObject(let value): return "each statistic must be an object, not \(value)"
        case .missingStatisticType: return "a statistic has no 'statisticType'"
        case .unknownStatisticType(let type):
            return "statisticType '\(type)' is not one of \(StatisticDefinition.StatisticType.allCases.map(\.rawValue).joined(separator: ", "))"
        case .missingStatisticField(let type): return "the \(type) statistic has no 'onStatisticField'"
        case .missingPercentile(let type): return "\(type) needs statisticParameters {\"value\": p} with 0 ≤ p ≤ 1"
        case .outStatisticsNotJSON(let error): return "not JSON: \(error)"
        case .outStatisticsNotList: return "must be a non-empty JSON array of statistic definitions"
        case .noStatistics: return "must list at least one statistic"
        case .statisticTypeNotSupported(let type):
            return "statisticType '\(type)' is not supported by this server (count, sum, min, max, avg, stddev or var)"
        case .statistics(_, let error): return error.description
        case .tooManyGroups(_, let maximum): return "the query forms more than \(maximum) groups, the most this server computes"
        case .statisticsUnsupported: return "statistics queries are not supported by this server yet"
        case .partialAggregationUnsupported: return "this server's statistics engine cannot aggregate a layer read from a file in parts"
        case .distinctWithoutOutFields: return "returnDistinctValues needs outFields naming the fields whose distinct values to return (not *)"
        case .distinctOrderNotInOutFields(let field, let outFields):
            return "'\(field)' is not one of the outFields (\(outFields.joined(separator: ", "))), which are what returnDistinctValues returns"
        case .quantizationNotObject:
            return "not a JSON object ({\"mode\":\"view\",\"originPosition\":\"upperLeft\",\"tolerance\":T,\"extent\":{…}})"
        case .quantizationMode(let mode): return "mode '\(mode)' is not view or edit"
        case .quantizationOrigin(let origin): return "originPosition '\(origin)' is not upperLeft or bottomLeft"
        case .quantizationWithoutExtent: return "has no extent"
        case .quantizationExtent(let error): return "extent: \(error.description)"
        case .quantizationTolerance: return "tolerance must be a positive number"
        case .quantizationReference(let extent, let output): return "the extent's spatial reference \(extent) is not the output's \(output)"
        case .unknownField(_, let name, let fields): return "unknown field '\(name)' (fields: \(fields.joined(separator: ", ")))"
        case .geoJSONNotWGS84(let outSR): return "f=geojson is always WGS84 (RFC 7946), not \(outSR)"
        case .unknownLayerReference(_, let target):
            return "the layer's spatial reference is unknown, so its points cannot be converted to \(target)"
        case .whereClause(let error), .textSearch(let error): return error.description
        case .noDisplayField: return "the layer has no display field (no string field) to search"
        case .notTimeAware: return "the layer is not time-aware (it has no timeInfo start time field)"
        case .noGeometry: return "the layer is a table: it has no geometry to intersect"
        case .vertexOutside(let target): return "a vertex of the polygon has no place in the layer's spatial reference \(target)"
        case .geometryOutside(let target): return "the geometry has no place in the layer's spatial reference \(target)"
        case .unitNotConvertible(let layerReference, let unit):
            return "the layer's spatial reference \(layerReference.map(String.init) ?? "(unknown)") has a linear unit this server does not convert "
                + "\(unit.rawValue) into; give the distance in the layer's own units (without units)"
        case .orderedAnswerTooLarge(_, let maximum):
            return "an ordered answer would keep more than \(maximum) rows of this layer read from a file; narrow it with where, time or geometry, "
                + "or page without orderByFields"
        case .tooManyIDsToOrder(let maximum):
            return "more than \(maximum) ids match; this layer, read from a file, orders at most \(maximum): narrow the query or leave out orderByFields"
        case .storeQueryTooLarge(let maximum, let observations):
            return "the query would read more than \(maximum) of the \(observations) observations the store holds; narrow it with where, time or geometry"
        }
    }

    /// The ArcGIS error JSON a server answers with.
    public var arcGISError: ArcGISError { .invalidParameter(parameter, reason) }

    public var description: String { "'\(parameter)' parameter is invalid: \(reason)" }

    /// An error thrown by a module above this one (a statistics engine's
    /// own error type), kept as that type: compare ``error`` by casting it.
    /// Equal when both hold equal errors of the same type.
    public struct Underlying: Sendable, Hashable, CustomStringConvertible {
        /// The error as thrown.
        public let error: any Error & Sendable & Hashable & CustomStringConvertible

        public init(_ error: some Error & Sendable & Hashable & CustomStringConvertible) { self.error = error }

        public static func == (lhs: Underlying, rhs: Underlying) -> Bool { Self.equal(lhs.error, rhs.error) }

        private static func equal<E: Hashable>(_ lhs: E, _ rhs: any Hashable) -> Bool { (rhs as? E) == lhs }

        public func hash(into hasher: inout Hasher) { error.hash(into: &hasher) }

        public var description: String { error.description }
    }
}
