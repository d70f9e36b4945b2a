import EntityStreamProjection
import EntityStreamModel

/// What one `result` line of an analysis says, as typed values. The output
/// formats render it: ``members`` (the Esri JSON line's members, written
/// after `"phase"`) and ``feature`` (its geometry and attributes) for the
/// JSON lines, and ``FeatureFormatter`` for GeoJSON and CSV, which reads
/// the values here (dates by their ``AttributeValue/date(milliseconds:)``
/// case) rather than out of JSON. A value type.
public enum AnalysisResult: Sendable, Hashable {
    /// A feature: a row of a layer or a file (`query`), a hot-spot cell or point (`hotspots`).
    case feature(AnalysisFeature)
    /// An observation of the entity store (`query-observations`).
    case observation(ObservationResult)
    /// One group's statistics (`statistics`).
    case statistics(StatisticsRecord)
    /// identify's answer for one point (`identify`).
    case identify(IdentifyResult)

    /// The members the JSON line writes after `"phase"`, in order.
    public var members: JSONObject {
        switch self {
        case .feature: return JSONObject()
        case .observation(let row): return row.members
        case .statistics(let record): return record.members
        case .identify(let answer): return answer.members
        }
    }

    /// The feature the line carries (geometry and attributes), if any.
    public var feature: AnalysisFeature? {
        switch self {
        case .feature(let feature): return feature
        case .observation(let row): return row.feature
        case .statistics: return nil
        case .identify(let answer): return answer.feature
        }
    }

    /// True when the feature formats write this result as a feature (or a
    /// table row): it carries a feature, or it is a statistics record.
    public var isFeatureLine: Bool {
        if case .statistics = self { return true }
        return feature != nil
    }
}

/// One observation of the entity store as `query-observations` answers it:
/// which entity, its observation id, when it was received, and the feature.
public struct ObservationResult: Sendable, Hashable {
    public var entity: EntityReference
    public var observation: Int64
    /// Epoch ms.
    public var received: Int64
    public var feature: AnalysisFeature

    public init(entity: EntityReference, observation: Int64, received: Int64, feature: AnalysisFeature) {
        self.entity = entity
        self.observation = observation
        self.received = received
        self.feature = feature
    }

    /// `"track"`, `"entity"`, `"observation"`, `"received"` (ISO-8601), `"receivedEpoch"`.
    public var members: JSONObject {
        JSONObject([("track", entity.trackID.jsonValue), ("entity", .int(entity.entityID)), ("observation", .int(observation)),
                    ("received", .string(ISO8601Text.string(milliseconds: received))), ("receivedEpoch", .int(received))])
    }
}

extension StatisticsRecord {
    /// `"group":{field: value, …}` then `"statistics":{name: value, …}`
    /// (dates as epoch ms, ``AttributeValue/jsonValue``): the record's `result` line.
    public var members: JSONObject {
        JSONObject([("group", .object(JSONObject(group))), ("statistics", .object(JSONObject(statistics)))])
    }
}

/// identify's answer for one input: the point as asked (echoed), then the
/// raster cell under it, no cell, or why it could not be answered, and
/// where the answer is drawn. A value type.
public struct IdentifyResult: Sendable, Hashable {
    /// The point as asked: its coordinates, the spatial reference it was
    /// read in (nil when none is known) and the id it gave.
    public struct Point: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public var wkid: Int?
        public var id: JSONValue?

        public init(x: Double, y: Double, wkid: Int?, id: JSONValue?) {
            self.x = x
            self.y = y
            self.wkid = wkid
            self.id = id
        }
    }

    /// The cell under a point: its band values (`Band_0…`, `Pixel.Type`,
    /// `NoData` for an all-NoData cell, as the ArcGIS Runtime names them),
    /// its column and row, and its extent in the raster's coordinates.
    public struct Cell: Sendable, Hashable {
        public var values: [NamedValue]
        public var column: Int
        public var row: Int
        public var xmin: Double, ymin: Double, xmax: Double, ymax: Double

        public init(values: [NamedValue], column: Int, row: Int, xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
            self.values = values
            self.column = column
            self.row = row
            self.xmin = xmin
            self.ymin = ymin
            self.xmax = xmax
            self.ymax = ymax
        }

        /// The attributes a cell's feature carries: the values, then `column`, `row`, `xmin`, `ymin`, `xmax`, `ymax`.
        var attributes: JSONObject {
            var attributes = JSONObject(values)
            attributes.append(key: "column", value: .int(Int64(column)))
            attributes.append(key: "row", value: .int(Int64(row)))
            attributes.append(key: "xmin", value: .double(xmin))
            attributes.append(key: "ymin", value: .double(ymin))
            attributes.append(key: "xmax", value: .double(xmax))
            attributes.append(key: "ymax", value: .double(ymax))
            return attributes
        }
    }

    public enum Answer: Sendable, Hashable {
        case cell(Cell)
        /// No cell (off the raster): `hint` when the point looks given in
        /// the wrong coordinates; `bands` of the raster, whose attributes
        /// the answer carries as null (one set of columns for every answer).
        case noCell(hint: String?, bands: Int)
        /// The point could not be answered (or the input line is not a point).
        case failed(String)
    }

    /// The input line's number (JSON-lines input).
    public var line: Int?
    /// The point as asked; nil for an input line that is not a point.
    public var point: Point?
    public var answer: Answer
    /// Where the answer is drawn, in the output spatial reference: the
    /// cell's extent as a polygon, or the point itself when it has no cell.
    public var geometry: AnalysisGeometry?
    /// Why ``geometry`` could not be written in the output spatial
    /// reference: the line then says so and carries no feature.
    public var outputError: String?

    public init(line: Int?, point: Point?, answer: Answer, geometry: AnalysisGeometry? = nil, outputError: String? = nil) {
        self.line = line
        self.point = point
        self.answer = answer
        self.geometry = geometry
        self.outputError = outputError
    }

    /// `line` when there is one, `point` (`{"x","y","sr"}` and its `id`),
    /// then `cell: null` and `hint` for no cell or `error` for a failure,
    /// then `error` when the answer's geometry could not be converted.
    public var members: JSONObject {
        var members = JSONObject()
        if let line { members.append(key: "line", value: .int(Int64(line))) }
        if let point {
            var echoed = JSONObject()
            echoed.append(key: "x", value: .double(point.x))
            echoed.append(key: "y", value: .double(point.y))
            echoed.append(key: "sr", value: Self.spatialReferenceJSON(point.wkid))
            if let id = point.id { echoed.append(key: "id", value: id) }
            members.append(key: "point", value: .object(echoed))
        }
        switch answer {
        case .cell: break
        case .noCell(let hint, _):
            members.append(key: "cell", value: .null)
            if let hint { members.append(key: "hint", value: .string(hint)) }
        case .failed(let reason):
            members.append(key: "error", value: .string(reason))
        }
        if let outputError { members.append(key: "error", value: .string(outputError)) }
        return members
    }

    /// For a cell, its extent with the cell's attributes; for no cell, the
    /// point with the raster's attributes, null; none for a failure or
    /// when the geometry could not be converted.
    public var feature: AnalysisFeature? {
        guard outputError == nil else { return nil }
        switch answer {
        case .cell(let cell):
            return AnalysisFeature(geometry: geometry, attributes: cell.attributes)
        case .noCell(_, let bands):
            var attributes = JSONObject()
            for band in 0..<bands { attributes.append(key: "Band_\(band)", value: .null) }
            for key in ["Pixel.Type", "column", "row", "xmin", "ymin", "xmax", "ymax"] { attributes.append(key: key, value: .null) }
            return AnalysisFeature(geometry: geometry, attributes: attributes)
        case .failed:
            return nil
        }
    }

    /// The echoed `sr`: the WKID, or the reference's JSON when it has none, null when unknown.
    static func spatialReferenceJSON(_ wkid: Int?) -> JSONValue {
        SpatialReference(code: wkid).map { reference in reference.wkid.map { .int(Int64($0)) } ?? reference.json } ?? .null
    }
}
