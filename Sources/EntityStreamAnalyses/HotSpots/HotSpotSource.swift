import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStream

/// Where a local hot-spot analysis reads its points from.
///
/// - ``store(_:)``: the running stream's entity store — every retained
///   observation (not only each entity's latest) matching the request's
///   time extent (on the service's time field by default, or `received`),
///   where clause, envelope and track ids, from one consistent snapshot.
/// - ``file(path:load:whereClause:timeExtent:)``: a feature file (CSV, Esri
///   JSON, GeoJSON, a recording) read by ``FeatureFile``, rows selected by
///   ``HotSpotTableSelection`` (its `DATE` alias included).
public enum HotSpotSource: Sendable {
    case store(QueryObservationsRequest)
    case file(path: String, load: FeatureLoadOptions, whereClause: String?, timeExtent: TimeExtent?)

    /// The points, read for the engine, with what the selection did.
    struct Prepared: Sendable {
        var input: HotSpotInput
        var reading: HotSpotPointReading
        var sourceIDs: [Int64]
        var valueField: String?
        /// Facts for the summary (file and rows, or the scan's time field and extent).
        var facts: JSONObject

        func sourceID(_ recordNumber: Int32) -> Int64 {
            recordNumber >= 0 && Int(recordNumber) < sourceIDs.count ? sourceIDs[Int(recordNumber)] : -1
        }
    }

    /// Reads the points; throws ``AnalysisFailure`` naming what is wrong, or
    /// `CancellationError`.
    func prepare(valueField: String?, processing: Int? = nil, in context: AnalysisContext) async throws -> Prepared {
        switch self {
        case .store(let request):
            let snapshot = try await context.snapshot()
            let schema = snapshot.contents.schema
            let scan = try request.compile(for: schema).scan
            let selection: HotSpotStoreSelection
            do {
                selection = try HotSpotStoreSelection.select(from: snapshot.contents, scan: scan, valueField: valueField,
                                                             processing: processing, shouldStop: { Task.isCancelled })
            } catch let error as HotSpotSelectionError {
                throw AnalysisFailure(error.description)
            }
            var facts = JSONObject()
            facts.append(key: "timeField", value: .string(Self.describe(scan.timeKey, schema: schema)))
            if !scan.timeExtent.isUnbounded { facts.append(key: "timeExtent", value: scan.timeExtent.summaryJSON) }
            if let whereClause = request.whereClause { facts.append(key: "where", value: .string(whereClause)) }
            facts.append(key: "matched", value: .int(Int64(selection.matchedCount)))
            return Prepared(input: selection.input, reading: selection.reading, sourceIDs: selection.sourceIDs,
                            valueField: selection.valueField, facts: facts)
        case .file(let path, let load, let whereClause, let timeExtent):
            let table: FeatureTable
            do { table = try FeatureFile.load(path: path, options: load) } catch { throw AnalysisFailure(error.description) }
            try Task.checkCancellation()
            let selection: HotSpotTableSelection
            do {
                selection = try HotSpotTableSelection.select(from: table, whereClause: whereClause, timeExtent: timeExtent, valueField: valueField,
                                                             processing: processing)
            } catch {
                throw AnalysisFailure(error.description)
            }
            var facts = JSONObject([("file", .string(path)), ("rows", .int(Int64(table.count)))])
            if let reference = SpatialReference(code: table.spatialReference) {
                if let wkid = reference.wkid { facts.append(key: "wkid", value: .int(Int64(wkid))) }
                facts.append(key: "spatialReference", value: reference.json)
            }
            if let time = table.startTimeFieldIndex { facts.append(key: "timeField", value: .string(table.schema.fields[time].name)) }
            if let timeExtent, !timeExtent.isUnbounded { facts.append(key: "timeExtent", value: timeExtent.summaryJSON) }
            if let whereClause { facts.append(key: "where", value: .string(whereClause)) }
            facts.append(key: "matched", value: .int(Int64(selection.matchedCount)))
            if table.report.skippedCount > 0 { facts.append(key: "skippedWhileLoading", value: .int(Int64(table.report.skippedCount))) }
            return Prepared(input: selection.input, reading: selection.reading, sourceIDs: selection.sourceIDs,
                            valueField: selection.valueField, facts: facts)
        }
    }

    /// `{"start":"…Z","end":"…Z"}` (null for an open end).
    private static func describe(_ key: ObservationTimeKey, schema: Schema) -> String {
        switch key {
        case .received: return "received"
        case .field(let start, let end): return schema.fields[start].name + (end.map { "," + schema.fields[$0].name } ?? "")
        }
    }
}
