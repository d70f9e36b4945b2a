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
                guard earlier.value == value else { throw FeatureQueryError(name, "given twice with different values ('\(earlier.value)' and '\(value)')") }
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
                    guard let id = Int64(part.trimmingSpaces) else { throw FeatureQueryError(name, "'\(part)' is not an object id (a whole number)") }
                    ids.append(id)
                }
                objectIDs = ids
            case "time":
                guard !trimmed.isEmpty else { continue }
                do {
                    let extent = try TimeExtent.parse(trimmed)
                    time = extent.isUnbounded ? nil : extent
                } catch {
                    throw FeatureQueryError(name, error.description)
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
                    throw FeatureQueryError(name, "only envelope, point and polygon geometries are supported ({\"xmin\":…,\"ymin\":…,\"xmax\":…,\"ymax\":…}, xmin,ymin,xmax,ymax, {\"x\":…,\"y\":…}, x,y or {\"rings\":[…]})")
                }
                do { geometry = try StreamFilter.parseEnvelope(trimmed) } catch { throw FeatureQueryError(name, error.description) }
            case "geometrytype":
                geometryType = trimmed.isEmpty ? nil : trimmed
            case "insr":
                inSR = try Self.spatialReference(trimmed, parameter: name)
            case "spatialrel":
                guard !trimmed.isEmpty else { continue }
                guard let relation = SpatialRelationship(rawValue: trimmed) else {
                    throw FeatureQueryError(name, "'\(trimmed)' is not supported (only esriSpatialRelIntersects and esriSpatialRelEnvelopeIntersects)")
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
                if let factor = maxRecordCountFactor, factor > 5 { throw FeatureQueryError(name, "must be between 1 and 5, not \(factor)") }
            case "returncountonly":
                returnCountOnly = try Self.boolean(trimmed, parameter: name) ?? false
            case "returnidsonly":
                returnIDsOnly = try Self.boolean(trimmed, parameter: name) ?? false
            case "returndistinctvalues":
                returnDistinctValues = try Self.boolean(trimmed, parameter: name) ?? false
            case "f":
                guard !trimmed.isEmpty else { continue }
                guard let parsed = Format(rawValue: trimmed.lowercased()) else {
                    throw FeatureQueryError(name, "'\(trimmed)' is not supported (json, pjson or geojson)")
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
                    throw FeatureQueryError(name, "having and havingClause (its alias) disagree ('\(other)' and '\(value)')")
                }
                havingClause = value
                havingName = name
            case "geometryprecision":
                geometryPrecision = try Self.integer(trimmed, parameter: name, minimum: 0)
                if let digits = geometryPrecision, digits > 17 { throw FeatureQueryError(name, "must be between 0 and 17 decimal places, not \(digits)") }
            case "quantizationparameters":
                guard !trimmed.isEmpty else { continue }
                quantization = try QuantizationParameters(parameter: trimmed)
            case "resulttype":
                guard !trimmed.isEmpty else { continue }
                guard let parsed = ResultType.allCases.first(where: { $0.rawValue == trimmed.lowercased() }) else {
                    throw FeatureQueryError(name, "'\(trimmed)' is not none, standard or tile")
                }
                resultType = parsed
            case "distance":
                guard !trimmed.isEmpty else { continue }
                guard let number = Double(trimmed), number.isFinite, number >= 0 else {
                    throw FeatureQueryError(name, "'\(trimmed)' is not a distance (a number ≥ 0)")
                }
                distance = number
            case "units":
                guard !trimmed.isEmpty else { continue }
                guard let unit = DistanceUnit(parameter: trimmed) else {
                    throw FeatureQueryError(name, "'\(trimmed)' is not a unit (\(DistanceUnit.allCases.map(\.rawValue).joined(separator: ", ")))")
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
                if geometryIsPoint || geometryIsPolygon { throw FeatureQueryError("geometryType", "esriGeometryEnvelope, but the geometry is a \(geometryIsPoint ? "point" : "polygon")") }
            case "esriGeometryPoint":
                if geometry != nil && !geometryIsPoint { throw FeatureQueryError("geometryType", "esriGeometryPoint, but the geometry is not a point") }
            case "esriGeometryPolygon":
                if geometry != nil && !geometryIsPolygon { throw FeatureQueryError("geometryType", "esriGeometryPolygon, but the geometry has no rings") }
            default:
                throw FeatureQueryError("geometryType", "'\(geometryType)' is not supported (esriGeometryEnvelope, esriGeometryPoint or esriGeometryPolygon)")
            }
        }
        if let inSR {
            if let own = geometry?.wkid, own != inSR {
                throw FeatureQueryError("inSR", "\(SpatialReference(code: inSR).map(String.init(describing:)) ?? "?") contradicts the geometry's spatial reference \(SpatialReference(code: own).map(String.init(describing:)) ?? "?")")
            }
            if var envelope = geometry {
                envelope.wkid = envelope.wkid ?? inSR
                geometry = envelope
            }
        }
        if havingClause != nil && outStatistics == nil {
            throw FeatureQueryError(havingName, "is allowed only with outStatistics")
        }
        if distance != nil && geometry == nil {
            throw FeatureQueryError("distance", "needs a geometry to measure from")
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
            throw FeatureQueryError(parameter, "a polygon needs at least one ring ({\"rings\":[[[x,y],…]]})")
        }
        var rings: [[AnalysisGeometry.Coordinate]] = []
        var vertices = 0
        var box: Envelope?
        for (ringIndex, ringValue) in ringValues.enumerated() {
            guard let points = ringValue.arrayValue, points.count >= 3 else {
                throw FeatureQueryError(parameter, "ring \(ringIndex) needs at least 3 vertices")
            }
            vertices += points.count
            guard vertices <= maximumPolygonVertices else { throw FeatureQueryError(parameter, "the polygon has more than \(maximumPolygonVertices) vertices") }
            var ring: [AnalysisGeometry.Coordinate] = []
            ring.reserveCapacity(points.count)
            for point in points {
                guard let pair = point.arrayValue, pair.count >= 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue, x.isFinite, y.isFinite else {
                    throw FeatureQueryError(parameter, "ring \(ringIndex) has a vertex that is not [x, y] numbers")
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
                throw FeatureQueryError(parameter, "the point's x and y must be numbers")
            }
            let reference = value["spatialReference"]
            let wkid = (reference?["wkid"]?.intValue ?? reference?["latestWkid"]?.intValue).flatMap { Int(exactly: $0) }
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y, wkid: wkid)
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        guard let x = Double(parts[0].trimmingSpaces), let y = Double(parts[1].trimmingSpaces), x.isFinite, y.isFinite else {
            throw FeatureQueryError(parameter, "'\(text)' is not a point (x,y)")
        }
        return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
    }

    static func boolean(_ text: String, parameter: String) throws(FeatureQueryError) -> Bool? {
        switch text.lowercased() {
        case "": return nil
        case "true": return true
        case "false": return false
        default: throw FeatureQueryError(parameter, "'\(text)' is not true or false")
        }
    }

    static func integer(_ text: String, parameter: String, minimum: Int) throws(FeatureQueryError) -> Int? {
        guard !text.isEmpty else { return nil }
        guard let value = Int(text), value >= minimum else {
            throw FeatureQueryError(parameter, "'\(text)' is not a whole number ≥ \(minimum)")
        }
        return value
    }

    /// A spatial reference given as a WKID (`4326`) or JSON (`{"wkid":4326}`,
    /// `{"latestWkid":3857}`, `{"wkt":"…"}`), checked with PROJ: its code.
    static func spatialReference(_ text: String, parameter: String) throws(FeatureQueryError) -> Int? {
        guard !text.isEmpty else { return nil }
        do { return try SpatialReference.parse(text: text).code } catch { throw FeatureQueryError(parameter, error.description) }
    }
}
