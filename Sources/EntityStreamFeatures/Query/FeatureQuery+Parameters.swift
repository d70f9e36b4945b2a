import EntityStreamProjection
import EntityStreamModel
import EntityStreamCore

extension FeatureQuery {
    /// Parameters of ArcGIS's Query (Feature Service/Layer) operation that
    /// do not change a point layer's answer here, accepted and ignored as
    /// ArcGIS Server does for points: generalisation and curves
    /// (`maxAllowableOffset`, `returnTrueCurves`, `returnCentroid`), z and m
    /// (`returnZ`, `returnM`, `multipatchOption`), versioning and archiving
    /// (`gdbVersion`, `historicMoment`), datum transformations, the
    /// relation string of `esriSpatialRelRelation`, output encodings that
    /// JSON already satisfies, caching hints, the token (the server's
    /// business) and joined-layer ids (`returnUniqueIdsOnly`, `uniqueIds`).
    public static let ignoredParameters: Set<String> = [
        "token", "returnz", "returnm", "sqlformat", "cachehint", "returnexceededlimitfeatures", "featureencoding",
        "timereferenceunknownclient", "returntruecurves", "returncentroid", "returnenvelope", "returnuniqueidsonly",
        "maxallowableoffset", "gdbversion", "historicmoment", "datumtransformation", "rangevalues", "parametervalues",
        "multipatchoption", "returnaggids", "relationparam", "uniqueids", "returngeodetic", "callback", "timerelation",
        "returnexceededlimitfeatures", "aggregationids", "returnsubtypevalues", "filter",
    ]

    /// Every parameter ArcGIS documents for the Query operation, the applied
    /// ones and ``ignoredParameters``, folded (what the conformance tests walk).
    public static let documentedParameters: Set<String> = ignoredParameters.union([
        "f", "where", "objectids", "time", "geometry", "geometrytype", "insr", "spatialrel", "outfields", "returngeometry",
        "outsr", "orderbyfields", "resultoffset", "resultrecordcount", "maxrecordcountfactor", "returncountonly", "returnidsonly",
        "returndistinctvalues", "outstatistics", "groupbyfieldsforstatistics", "having", "geometryprecision",
        "quantizationparameters", "resulttype", "distance", "units", "returnextentonly", "returnqueryextent", "text", "defaultsr",
    ])

    /// Parses a query from its REST parameters (query string or form body,
    /// names ASCII case-insensitive). Unknown parameters are ignored, as
    /// ArcGIS does; a known one this implementation cannot honour, given a
    /// value, is refused.
    /// - Throws: ``FeatureQueryError`` naming the first bad parameter (a
    ///   parameter given twice with different values, a malformed value).
    public init(parameters: [(name: String, value: String)]) throws(FeatureQueryError) {
        self.init()
        outFields = []
        var seen: [String: (name: String, value: String)] = [:]
        for (name, value) in parameters {
            let key = Schema.fold(name)
            if let earlier = seen[key] {
                guard earlier.value == value else { throw .givenTwice(parameter: name, first: earlier.value, second: value) }
                continue
            }
            seen[key] = (name, value)
        }
        var inSR: Int?
        var defaultSR: Int?
        var geometryType: String?
        var geometryIsPoint = false
        var geometryIsPolygon = false
        var havingName = "having"
        for (key, entry) in seen.sorted(by: { $0.key < $1.key }) {
            let name = entry.name
            let value = entry.value
            let trimmed = value.trimmingSpaces
            switch key {
            case "where":
                whereClause = trimmed.isEmpty ? nil : value
            case "objectids":
                guard !trimmed.isEmpty else { continue }
                var ids: [Int64] = []
                for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let id = Int64(part.trimmingSpaces) else { throw .notObjectID(parameter: name, String(part)) }
                    ids.append(id)
                }
                objectIDs = ids
            case "time":
                guard !trimmed.isEmpty else { continue }
                do throws(TimeExtentError) {
                    let extent = try TimeExtent.parse(trimmed)
                    time = extent.isUnbounded ? nil : extent
                } catch {
                    throw .time(parameter: name, error)
                }
            case "geometry":
                guard !trimmed.isEmpty else { continue }
                if let point = try Self.point(trimmed, parameter: name) {
                    geometry = point
                    geometryIsPoint = true
                    continue
                }
                if trimmed.hasPrefix("{"), let parsed = try? JSONParser.parse(trimmed), parsed["rings"] != nil {
                    let (rings, bounds) = try Self.polygon(parsed, parameter: name)
                    polygonRings = rings
                    geometry = bounds
                    geometryIsPolygon = true
                    continue
                }
                if trimmed.hasPrefix("{"), let parsed = try? JSONParser.parse(trimmed), parsed["paths"] != nil || parsed["points"] != nil {
                    throw .unsupportedGeometry(parameter: name)
                }
                do throws(FilterError) { geometry = try StreamFilter.parseEnvelope(trimmed) } catch { throw .envelope(parameter: name, error) }
            case "geometrytype":
                geometryType = trimmed.isEmpty ? nil : trimmed
            case "insr":
                inSR = try Self.spatialReference(trimmed, parameter: name)
            case "spatialrel":
                guard !trimmed.isEmpty else { continue }
                guard let relation = SpatialRelationship(rawValue: trimmed) else {
                    throw .unsupportedSpatialRelationship(parameter: name, trimmed)
                }
                spatialRelationship = relation
            case "outfields":
                outFields = StreamFilter.parseOutFields(value.split(separator: ",").map(String.init)) ?? (trimmed.isEmpty ? [] : nil)
            case "returngeometry":
                returnGeometry = try Self.boolean(trimmed, parameter: name) ?? true
            case "outsr":
                outSpatialReference = try Self.spatialReference(trimmed, parameter: name)
            case "orderbyfields":
                orderBy = try OrderByField.parseList(value, parameter: name)
            case "resultoffset":
                resultOffset = try Self.integer(trimmed, parameter: name, minimum: 0)
            case "resultrecordcount":
                resultRecordCount = try Self.integer(trimmed, parameter: name, minimum: 1)
            case "maxrecordcountfactor":
                maxRecordCountFactor = try Self.integer(trimmed, parameter: name, minimum: 1)
                if let factor = maxRecordCountFactor, factor > 5 { throw .maxRecordCountFactorOutOfRange(parameter: name, factor) }
            case "returncountonly":
                returnCountOnly = try Self.boolean(trimmed, parameter: name) ?? false
            case "returnidsonly":
                returnIDsOnly = try Self.boolean(trimmed, parameter: name) ?? false
            case "returndistinctvalues":
                returnDistinctValues = try Self.boolean(trimmed, parameter: name) ?? false
            case "f":
                guard !trimmed.isEmpty else { continue }
                guard let parsed = Format(rawValue: trimmed.lowercased()) else {
                    throw .unsupportedFormat(parameter: name, trimmed)
                }
                format = parsed
            case "outstatistics":
                guard !trimmed.isEmpty else { continue }
                outStatistics = try StatisticDefinition.parseList(trimmed)
            case "groupbyfieldsforstatistics":
                groupByFieldsForStatistics = trimmed.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
            case "having", "havingclause":
                guard !trimmed.isEmpty else { continue }
                if let other = havingClause, other != value {
                    throw .havingDisagrees(parameter: name, first: other, second: value)
                }
                havingClause = value
                havingName = name
            case "geometryprecision":
                geometryPrecision = try Self.integer(trimmed, parameter: name, minimum: 0)
                if let digits = geometryPrecision, digits > 17 { throw .geometryPrecisionOutOfRange(parameter: name, digits) }
            case "quantizationparameters":
                guard !trimmed.isEmpty else { continue }
                quantization = try QuantizationParameters(parameter: trimmed)
            case "resulttype":
                guard !trimmed.isEmpty else { continue }
                guard let parsed = ResultType.allCases.first(where: { $0.rawValue == trimmed.lowercased() }) else {
                    throw .unknownResultType(parameter: name, trimmed)
                }
                resultType = parsed
            case "distance":
                guard !trimmed.isEmpty else { continue }
                guard let number = Double(trimmed), number.isFinite, number >= 0 else {
                    throw .notDistance(parameter: name, trimmed)
                }
                distance = number
            case "units":
                guard !trimmed.isEmpty else { continue }
                guard let unit = DistanceUnit(parameter: trimmed) else {
                    throw .unknownUnit(parameter: name, trimmed)
                }
                distanceUnit = unit
            case "returnextentonly":
                returnExtentOnly = try Self.boolean(trimmed, parameter: name) ?? false
            case "returnqueryextent":
                returnQueryExtent = try Self.boolean(trimmed, parameter: name) ?? false
            case "text":
                text = value.isEmpty ? nil : value
            case "defaultsr":
                defaultSR = try Self.spatialReference(trimmed, parameter: name)
            default:
                // Ignored: ``ignoredParameters`` (documented, no effect on a
                // point layer) and unknown ones, as ArcGIS ignores both.
                break
            }
        }
        if let defaultSR {
            if inSR == nil { inSR = defaultSR }
            if outSpatialReference == nil, format != .geojson { outSpatialReference = defaultSR }
        }
        if let geometryType {
            switch geometryType {
            case "esriGeometryEnvelope":
                if geometryIsPoint || geometryIsPolygon { throw .geometryNotEnvelope(actual: geometryIsPoint ? "point" : "polygon") }
            case "esriGeometryPoint":
                if geometry != nil && !geometryIsPoint { throw .geometryNotPoint }
            case "esriGeometryPolygon":
                if geometry != nil && !geometryIsPolygon { throw .geometryNotPolygon }
            default:
                throw .unsupportedGeometryType(geometryType)
            }
        }
        if let inSR {
            if let own = geometry?.wkid, own != inSR {
                throw .inSRContradictsGeometry(inSR: inSR, geometry: own)
            }
            if var envelope = geometry {
                envelope.wkid = envelope.wkid ?? inSR
                geometry = envelope
            }
        }
        if havingClause != nil && outStatistics == nil {
            throw .havingWithoutStatistics(parameter: havingName)
        }
        if distance != nil && geometry == nil {
            throw .distanceWithoutGeometry
        }
        // ArcGIS: with both, the count takes precedence (the JS SDK's queryFeatureCount sends both).
        if returnCountOnly { returnIDsOnly = false }
    }

    /// The most vertices a polygon geometry may have (a bound on the work one query can ask for).
    public static let maximumPolygonVertices = 100_000

    /// A polygon geometry's rings (each at least 3 vertices; closed or not)
    /// and their bounding box with the geometry's spatial reference.
    static func polygon(_ value: JSONValue, parameter: String) throws(FeatureQueryError) -> ([[AnalysisGeometry.Coordinate]], Envelope) {
        guard let ringValues = value["rings"]?.arrayValue, !ringValues.isEmpty else {
            throw .polygonWithoutRings(parameter: parameter)
        }
        var rings: [[AnalysisGeometry.Coordinate]] = []
        var vertices = 0
        var box: Envelope?
        for (ringIndex, ringValue) in ringValues.enumerated() {
            guard let points = ringValue.arrayValue, points.count >= 3 else {
                throw .ringTooShort(parameter: parameter, ring: ringIndex)
            }
            vertices += points.count
            guard vertices <= maximumPolygonVertices else { throw .tooManyVertices(parameter: parameter, maximum: maximumPolygonVertices) }
            var ring: [AnalysisGeometry.Coordinate] = []
            ring.reserveCapacity(points.count)
            for point in points {
                guard let pair = point.arrayValue, pair.count >= 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue, x.isFinite, y.isFinite else {
                    throw .badVertex(parameter: parameter, ring: ringIndex)
                }
                ring.append(AnalysisGeometry.Coordinate(x: x, y: y))
                box = Envelope.including(box, x: x, y: y)
            }
            rings.append(ring)
        }
        let reference = value["spatialReference"]
        var bounds = box ?? Envelope(xmin: 0, ymin: 0, xmax: 0, ymax: 0)
        bounds.wkid = (reference?["wkid"]?.intValue ?? reference?["latestWkid"]?.intValue).flatMap { Int(exactly: $0) }
        return (rings, bounds)
    }

    /// A point geometry (`{"x":…,"y":…[,"spatialReference":…]}` or `x,y`) as
    /// an envelope of no size; nil when `text` is not a point.
    static func point(_ text: String, parameter: String) throws(FeatureQueryError) -> Envelope? {
        if text.hasPrefix("{") {
            guard let value = try? JSONParser.parse(text), value["x"] != nil else { return nil }
            guard let x = value["x"]?.doubleValue, let y = value["y"]?.doubleValue, x.isFinite, y.isFinite else {
                throw .pointNotNumbers(parameter: parameter)
            }
            let reference = value["spatialReference"]
            let wkid = (reference?["wkid"]?.intValue ?? reference?["latestWkid"]?.intValue).flatMap { Int(exactly: $0) }
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y, wkid: wkid)
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        guard let x = Double(parts[0].trimmingSpaces), let y = Double(parts[1].trimmingSpaces), x.isFinite, y.isFinite else {
            throw .notPoint(parameter: parameter, text)
        }
        return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
    }

    static func boolean(_ text: String, parameter: String) throws(FeatureQueryError) -> Bool? {
        switch text.lowercased() {
        case "": return nil
        case "true": return true
        case "false": return false
        default: throw .notBoolean(parameter: parameter, text)
        }
    }

    static func integer(_ text: String, parameter: String, minimum: Int) throws(FeatureQueryError) -> Int? {
        guard !text.isEmpty else { return nil }
        guard let value = Int(text), value >= minimum else {
            throw .notWholeNumber(parameter: parameter, text, minimum: minimum)
        }
        return value
    }

    /// A spatial reference given as a WKID (`4326`) or JSON (`{"wkid":4326}`,
    /// `{"latestWkid":3857}`, `{"wkt":"…"}`), checked with PROJ: its code.
    static func spatialReference(_ text: String, parameter: String) throws(FeatureQueryError) -> Int? {
        guard !text.isEmpty else { return nil }
        do throws(ProjectionError) { return try SpatialReference.parse(text: text).code } catch { throw .projection(parameter: parameter, error) }
    }
}
