import EntityStreamModel
import EntityStreamCore
/// The parameters of a feature-layer `query` (ArcGIS REST "Query (Feature
/// Service/Layer)"), as a value: what the simulator's layers parse
/// (``init(parameters:)``, every bad parameter a ``FeatureQueryError``
/// naming it) and what the client encodes (``parameters``).
///
/// Meanings (ArcGIS's):
/// - ``whereClause``: SQL-92 where clause (nil or empty: every row).
/// - ``objectIDs``: only these object ids.
/// - ``time``: the time extent, both ends inclusive (nil: no time filter).
/// - ``geometry``: an envelope the features must intersect; its `wkid` is
///   the input spatial reference (`inSR`), nil meaning the layer's.
/// - ``outFields``: nil for `*` (every field); a list otherwise; an empty
///   list (what a request without `outFields` means) is the object id only.
/// - ``outSpatialReference``: output wkid (nil: the layer's).
/// - ``orderBy``; ``resultOffset``/``resultRecordCount`` (paging);
///   ``returnCountOnly``, ``returnIDsOnly``; ``format`` (`f`).
/// - The statistics parameters (``outStatistics``,
///   ``groupByFieldsForStatistics``, ``havingClause``,
///   ``returnDistinctValues``) are parsed and kept for a statistics engine.
/// A plain value.
public struct FeatureQuery: Sendable, Hashable {
    /// `spatialRel`: the two relations that mean the same for points.
    public enum SpatialRelationship: String, Sendable, Hashable {
        case intersects = "esriSpatialRelIntersects"
        case envelopeIntersects = "esriSpatialRelEnvelopeIntersects"
    }

    /// `f`: the response format.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case json, pjson, geojson
    }

    public var whereClause: String?
    public var objectIDs: [Int64]?
    public var time: TimeExtent?
    public var geometry: Envelope?
    public var spatialRelationship: SpatialRelationship
    public var outFields: [String]?
    public var returnGeometry: Bool
    public var outSpatialReference: Int?
    public var orderBy: [OrderByField]
    public var resultOffset: Int?
    public var resultRecordCount: Int?
    /// `maxRecordCountFactor` (1…5): a page may hold this many times `maxRecordCount`.
    public var maxRecordCountFactor: Int?
    public var returnCountOnly: Bool
    public var returnIDsOnly: Bool
    public var format: Format
    public var outStatistics: [StatisticDefinition]?
    public var groupByFieldsForStatistics: [String]
    /// `having` (ArcGIS's name; `havingClause` is read as an alias).
    public var havingClause: String?
    public var returnDistinctValues: Bool
    /// `geometryPrecision`: decimal places of output coordinates (0…17).
    public var geometryPrecision: Int?
    /// `quantizationParameters`: output coordinates as integers on a grid.
    public var quantization: QuantizationParameters?
    /// `resultType`: `standard` or `tile` pages by the layer's
    /// `standardMaxRecordCount` / `tileMaxRecordCount` instead of `maxRecordCount`.
    public var resultType: ResultType
    /// A polygon `geometry` (`{"rings":…}`): its rings, in ``geometry``'s
    /// spatial reference, ``geometry`` being their bounding box. Points
    /// match when inside (even-odd over the rings) or on the boundary.
    public var polygonRings: [[AnalysisGeometry.Coordinate]]?
    /// `distance` (with ``distanceUnit``): features within this distance of
    /// ``geometry`` match (a buffer), in the layer's units when no unit is given.
    public var distance: Double?
    /// `units`.
    public var distanceUnit: DistanceUnit?
    /// `returnExtentOnly`: answer the extent of the matches (with the count
    /// when ``returnCountOnly`` is set too).
    public var returnExtentOnly: Bool
    /// `returnQueryExtent`: add the matches' extent to a feature answer.
    public var returnQueryExtent: Bool
    /// `text`: the display field must contain this text (case-sensitive),
    /// ArcGIS's shorthand for `<displayField> LIKE '%text%'`.
    public var text: String?

    /// A query for every feature with every field (`where=1=1&outFields=*`).
    public init(whereClause: String? = nil, objectIDs: [Int64]? = nil, time: TimeExtent? = nil, geometry: Envelope? = nil,
                spatialRelationship: SpatialRelationship = .intersects, outFields: [String]? = nil, returnGeometry: Bool = true,
                outSpatialReference: Int? = nil, orderBy: [OrderByField] = [], resultOffset: Int? = nil, resultRecordCount: Int? = nil,
                returnCountOnly: Bool = false, returnIDsOnly: Bool = false, format: Format = .json) {
        self.whereClause = whereClause
        self.objectIDs = objectIDs
        self.time = time
        self.geometry = geometry
        self.spatialRelationship = spatialRelationship
        self.outFields = outFields
        self.returnGeometry = returnGeometry
        self.outSpatialReference = outSpatialReference
        self.orderBy = orderBy
        self.resultOffset = resultOffset
        self.resultRecordCount = resultRecordCount
        self.maxRecordCountFactor = nil
        self.returnCountOnly = returnCountOnly
        self.returnIDsOnly = returnIDsOnly
        self.format = format
        self.outStatistics = nil
        self.groupByFieldsForStatistics = []
        self.havingClause = nil
        self.returnDistinctValues = false
        self.polygonRings = nil
        self.geometryPrecision = nil
        self.quantization = nil
        self.resultType = .none
        self.distance = nil
        self.distanceUnit = nil
        self.returnExtentOnly = false
        self.returnQueryExtent = false
        self.text = nil
    }

    /// `query`'s selection (where, time, geometry, object ids, text) asking
    /// for the matching object ids only.
    public static func idsOnly(of query: FeatureQuery) -> FeatureQuery {
        var ids = FeatureQuery(whereClause: query.whereClause, objectIDs: query.objectIDs, time: query.time, geometry: query.geometry,
                               spatialRelationship: query.spatialRelationship, outFields: [], returnGeometry: false, returnIDsOnly: true)
        ids.polygonRings = query.polygonRings
        ids.distance = query.distance
        ids.distanceUnit = query.distanceUnit
        ids.text = query.text
        return ids
    }

    /// The where clause when it restricts anything (not empty, not `1=1`).
    public var effectiveWhereClause: String? {
        guard let text = whereClause?.trimmingSpaces, !text.isEmpty, text != "1=1", text != "1 = 1" else { return nil }
        return text
    }

    /// True when the query asks for statistics or distinct values (a statistics engine's work).
    public var isStatisticsQuery: Bool { outStatistics != nil || returnDistinctValues }
}
