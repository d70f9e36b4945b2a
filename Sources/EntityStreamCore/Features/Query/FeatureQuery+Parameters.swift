import Projection

extension FeatureQuery {
    /// Parameters a server may accept and ignore: they change nothing here
    /// (the token is the server's business, the rest are output niceties
    /// that the answer already satisfies).
    static let ignoredParameters: Set<String> = [
        "token", "returnz", "returnm", "sqlformat", "cachehint", "returnexceededlimitfeatures", "featureencoding",
        "timereferenceunknownclient", "returntruecurves", "returncentroid", "returnenvelope", "returnuniqueidsonly",
    ]

    /// Parameters of the REST query that this implementation does not carry
    /// out: refused (400) when given a value, so nothing is silently widened.
    static let unsupportedParameters: Set<String> = [
        "text", "distance", "units", "relationparam", "maxallowableoffset", "geometryprecision", "gdbversion",
        "historicmoment", "returnqueryextent", "datumtransformation", "rangevalues", "quantizationparameters",
        "parametervalues", "resulttype", "multipatchoption", "callback", "timerelation", "returnaggids",
    ]

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
        var geometryType: String?
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
                if trimmed.hasPrefix("{"), let parsed = try? JSONParser.parse(trimmed), parsed["x"] != nil || parsed["rings"] != nil || parsed["paths"] != nil || parsed["points"] != nil {
                    throw FeatureQueryError(name, "only envelope geometries are supported ({\"xmin\":…,\"ymin\":…,\"xmax\":…,\"ymax\":…} or xmin,ymin,xmax,ymax)")
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
            case "havingclause":
                havingClause = trimmed.isEmpty ? nil : value
            default:
                if Self.unsupportedParameters.contains(key), !trimmed.isEmpty, !Self.isDefault(key: key, value: trimmed) {
                    throw FeatureQueryError(name, "not supported by this server")
                }
            }
        }
        if let geometryType, geometryType != "esriGeometryEnvelope" {
            throw FeatureQueryError("geometryType", "'\(geometryType)' is not supported (only esriGeometryEnvelope)")
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
            throw FeatureQueryError("havingClause", "is allowed only with outStatistics")
        }
        if returnCountOnly && returnIDsOnly {
            throw FeatureQueryError("returnIdsOnly", "cannot be combined with returnCountOnly")
        }
    }

    /// A default-valued unsupported parameter is harmless (`returnQueryExtent=false`).
    private static func isDefault(key: String, value: String) -> Bool {
        value.lowercased() == "false" || (key == "resulttype" && value.lowercased() == "none")
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
