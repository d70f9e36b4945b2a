import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamModel
import EntityStreamFeatures

/// The work of the simulator's hot-spot task: the incidents it was loaded
/// with, its REST description, and one analysis per job — the rows its
/// `Query` selects (the project's one where-clause engine, `"DATE"` naming
/// the time field as ``HotSpotTableSelection`` allows), analysed by the
/// project's engine with Optimized Hot Spot Analysis's defaults.
///
/// Parameters (all optional): `Query` (GPString, a where clause; empty:
/// every incident), `Aggregation` (`fishnet`, the default, or `collect`),
/// `Cell_Size` and `Distance_Band` (GPDouble, the data's linear unit;
/// metres for geographic processing), `env:processSR` (the spatial
/// reference distances are measured in, as ArcGIS does: the incidents are
/// brought into it through PROJ; default the data's own, Web Mercator data
/// measured in metres on the ellipsoid) and `env:outSR` (the results are
/// projected into it; default the data's own). Either may be a WKID,
/// `{"wkid":…}` or `{"wkt":…}`; one PROJ does not know is a 400 naming it.
/// Output: `Output_Features`
/// (GPFeatureRecordSetLayer: fishnet cells as polygons, or points). Immutable; Sendable.
struct HotSpotTask: Sendable {
    /// Where a job's incidents come from.
    enum Incidents: Sendable {
        /// Loaded once (`--hotspots NAME=FILE`).
        case table(FeatureTable)
        /// Read afresh when each job starts (a relay's live store); throws
        /// the message the job fails with when they cannot be read.
        case live(@Sendable () async throws(SimulatorError) -> FeatureTable)
    }

    let serviceName: String
    let incidents: Incidents
    let description: GPTaskDescription

    /// The loaded incidents of a fixed task (nil for a live one).
    var table: FeatureTable? {
        if case .table(let table) = incidents { return table }
        return nil
    }

    /// The incidents a job starting now analyses.
    func incidentTable() async throws(SimulatorError) -> FeatureTable {
        switch incidents {
        case .table(let table): return table
        case .live(let read): return try await read()
        }
    }

    /// A job's parameters, checked at `submitJob`.
    struct Request: Sendable {
        var query: String?
        var aggregation: HotSpotAggregation = .fishnet(cellSize: nil)
        var distanceBand: Double?
        var outSR: Int?
        var processSR: Int?
        /// The inputs as given, for `jobs/<id>/inputs/<name>`.
        var inputs: [(name: String, dataType: String, value: JSONValue)] = []
    }

    /// What a succeeded job produced.
    struct Outcome: Sendable {
        var messages: [GPJobMessage]
        /// `results/Output_Features` (the whole answer).
        var resultBody: [UInt8]
        /// The result map service's layer 0.
        var layer: SimulatedLayer
    }

    static let resultName = "Output_Features"

    init(serviceName: String, table: FeatureTable) {
        self.init(serviceName: serviceName, incidents: .table(table),
                  describing: "Hot spots (Getis-Ord Gi*) of the \(table.count) incidents of \(table.name) selected by Query.")
    }

    /// A task over `incidents`, described by `text`.
    init(serviceName: String, incidents: Incidents, describing text: String) {
        self.serviceName = serviceName
        self.incidents = incidents
        description = GPTaskDescription(
            name: HotSpotServiceSpecification.taskName,
            description: text,
            category: "Spatial Statistics",
            parameters: [
                GPParameterInfo(name: "Query", dataType: "GPString", description: "A where clause selecting the incidents; \"DATE\" is their date.",
                                direction: .input, defaultValue: .string(""), parameterType: "esriGPParameterTypeOptional"),
                GPParameterInfo(name: "Aggregation", dataType: "GPString", description: "How incidents are counted.", direction: .input,
                                defaultValue: .string("fishnet"), parameterType: "esriGPParameterTypeOptional", choiceList: ["fishnet", "collect"]),
                GPParameterInfo(name: "Cell_Size", dataType: "GPDouble", description: "Fishnet cell size (empty: chosen).",
                                direction: .input, parameterType: "esriGPParameterTypeOptional"),
                GPParameterInfo(name: "Distance_Band", dataType: "GPDouble", description: "Distance band (empty: chosen).",
                                direction: .input, parameterType: "esriGPParameterTypeOptional"),
                GPParameterInfo(name: Self.resultName, dataType: "GPFeatureRecordSetLayer", direction: .output,
                                parameterType: "esriGPParameterTypeDerived"),
            ])
    }

    /// Reads `submitJob`'s parameters; throws the ArcGIS error to answer.
    func request(_ parameters: [(name: String, value: String)]) throws(ArcGISError) -> Request {
        func value(_ name: String) -> String? {
            parameters.last { Schema.fold($0.name) == Schema.fold(name) }.map(\.value)
        }
        func invalid(_ name: String, _ reason: String) -> ArcGISError {
            ArcGISError(code: 400, message: "Unable to complete operation.", details: ["Invalid value for parameter '\(name)': \(reason)"])
        }
        func positive(_ name: String) throws(ArcGISError) -> Double? {
            guard let text = value(name), !text.isEmpty else { return nil }
            guard let number = Double(text), number.isFinite, number > 0, number <= 1e12 else { throw invalid(name, "'\(text.prefix(40))' is not a positive distance") }
            return number
        }
        func wkid(_ name: String) throws(ArcGISError) -> Int? {
            guard let text = value(name), !text.isEmpty else { return nil }
            do { return try SpatialReference.parse(text: text).code } catch { throw invalid(name, error.description) }
        }
        var request = Request()
        request.query = value("Query").flatMap { $0.isEmpty ? nil : $0 }
        if let query = request.query {
            guard query.utf8.count <= 64 * 1024 else { throw invalid("Query", "longer than 64 KiB") }
            request.inputs.append(("Query", "GPString", .string(query)))
        }
        switch value("Aggregation").map({ Schema.fold($0) }) {
        case nil, "", "fishnet": request.aggregation = .fishnet(cellSize: try positive("Cell_Size"))
        case "collect":
            if try positive("Cell_Size") != nil { throw invalid("Cell_Size", "applies to the fishnet aggregation only") }
            request.aggregation = .collectEvents
        case let other?: throw invalid("Aggregation", "'\(other.prefix(40))' is not fishnet or collect")
        }
        request.distanceBand = try positive("Distance_Band")
        request.outSR = try wkid("env:outSR")
        request.processSR = try wkid("env:processSR")
        return request
    }

    /// Runs one job's analysis. Throws ``HotSpotSelectionError`` or
    /// ``HotSpotError`` (the job fails with its message), or `CancellationError`.
    func run(_ request: Request, on table: FeatureTable, maxRecordCount: Int, shouldStop: @escaping @Sendable () -> Bool) throws -> Outcome {
        let selection = try HotSpotTableSelection.select(from: table, whereClause: request.query, processing: request.processSR)
        if shouldStop() { throw CancellationError() }
        var options = HotSpotOptions(aggregation: request.aggregation, distanceBand: request.distanceBand)
        options.fdr = true
        let result = try HotSpotAnalysis(options: options).run(selection.input, monitor: HotSpotMonitor(shouldStop: shouldStop))
        var messages: [GPJobMessage] = []
        let reading = selection.reading
        let processing = SpatialReference(code: reading.processingWKID).map(String.init(describing:)) ?? "unknown"
        messages.append(GPJobMessage(.informative, "Query selected \(selection.matchedCount) of \(table.count) incidents."))
        messages.append(GPJobMessage(.informative, "Distances are measured in \(reading.distanceUnit) (processing spatial reference \(processing))."))
        for line in HotSpotSummaryJSON.messages(result, unit: reading.distanceUnit) { messages.append(GPJobMessage(.informative, line)) }
        let output = try HotSpotOutput(result: result, valueField: nil, sourceID: { [selection] in selection.sourceID($0) },
                                       wkid: reading.processingWKID, outSR: request.outSR ?? reading.outputWKID)
        var body = JSONWriter(capacity: 256 + output.count * 200)
        body.appendRaw("{\"paramName\":")
        body.appendString(Self.resultName)
        body.appendRaw(",\"dataType\":\"GPFeatureRecordSetLayer\",\"value\":")
        body.appendRaw(output.featureSet())
        body.appendRaw("}")
        return Outcome(messages: messages, resultBody: body.bytes, layer: try Self.layer(output, maxRecordCount: maxRecordCount))
    }

    /// The result map service's layer, describing what it serves as
    /// `results/Output_Features` holds it: fishnet cells as polygons
    /// (`esriGeometryPolygon`, the table's points being their centres), or
    /// points.
    static func layer(_ output: HotSpotOutput, maxRecordCount: Int) throws -> SimulatedLayer {
        let countType: FieldType = output.result.valueField == nil ? .double : .integer
        let schema = Schema(fields: [Field(name: "OBJECTID", type: .objectID, nullable: false), Field(name: "SOURCE_ID", type: .integer),
                                     Field(name: output.valueFieldName, type: countType), Field(name: "GiZScore", type: .double),
                                     Field(name: "GiPValue", type: .double), Field(name: "NNeighbors", type: .integer),
                                     Field(name: "Gi_Bin", type: .smallInteger)])
        var builder = try FeatureTableBuilder(name: resultName, schema: schema, objectIDFieldIndex: 0, assignsObjectIDs: false,
                                              geometryType: .point, spatialReference: output.wkid)
        builder.reserveCapacity(output.count)
        for index in 0..<output.count {
            let attributes = output.feature(index).attributes
            let row = schema.fields.map { field -> AttributeValue in
                switch attributes[field.name] {
                case .int(let number)?: return field.type == .double ? .double(Double(number)) : .int(number)
                case .double(let number)?: return .double(number)
                default: return .null
                }
            }
            try builder.append(geometry: output.point(index), values: row)
        }
        var polygons: RowPolygons?
        if output.geometryType == "esriGeometryPolygon" {
            polygons = RowPolygons(rings: (0..<output.count).map { index in
                guard case .polygon(let rings, _)? = output.feature(index).geometry else { return [] }
                return rings
            })
        }
        return SimulatedLayer(table: builder.build(), maxRecordCount: maxRecordCount, supportsPagination: true, polygons: polygons)
    }
}
