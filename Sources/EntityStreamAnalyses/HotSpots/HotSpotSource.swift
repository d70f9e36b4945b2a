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
///   JSON, GeoJSON, a recording), rows selected by ``HotSpotTableSelection``
///   (its `DATE` alias included). A file that streams (``FeatureFileScans``:
///   CSV and the line formats) is read in chunks, keeping only the
///   matching records' points, values and object ids; a one-document file is loaded whole.
public enum HotSpotSource: Sendable {
    case store(QueryObservationsRequest)
    case file(path: String, load: FeatureLoadOptions, whereClause: String?, timeExtent: TimeExtent?)

    /// The points, read for the engine, with what the selection did.
    struct Prepared: Sendable {
        var input: HotSpotInput
        var reading: HotSpotPointReading
        var sourceIDs: [Int64]
        var valueField: String?
        /// What the summary says of the selection (file and rows, or the scan's time field and extent).
        var selection: HotSpotSelectionReport

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
            let report = HotSpotSelectionReport(file: nil, timeField: ReportedTimeField(scan.timeKey, schema: schema), timeExtent: scan.timeExtent,
                                                whereClause: request.whereClause, matched: selection.matchedCount)
            return Prepared(input: selection.input, reading: selection.reading, sourceIDs: selection.sourceIDs,
                            valueField: selection.valueField, selection: report)
        case .file(let path, let load, let whereClause, let timeExtent):
            if let streamed = try await Self.streamed(path: path, load: load, whereClause: whereClause, timeExtent: timeExtent,
                                                      valueField: valueField, processing: processing, in: context) {
                return streamed
            }
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
            return Self.prepared(selection, path: path, layer: LayerFacts(table), rows: table.count, skipped: table.report.skippedCount,
                                 whereClause: whereClause, timeExtent: timeExtent)
        }
    }

    /// The points of a file that streams (``FeatureFileScans``): each chunk's
    /// matching records are gathered on a worker thread and only their
    /// points, values and object ids are kept, never the rows; nil for a
    /// file that is one JSON document (loaded whole instead).
    private static func streamed(path: String, load: FeatureLoadOptions, whereClause: String?, timeExtent: TimeExtent?,
                                 valueField: String?, processing: Int?, in context: AnalysisContext) async throws -> Prepared? {
        do {
            guard let scan = try await FeatureFileScans.open(path: path, options: load) else { return nil }
            for _ in 1...2 {
                var gathered: HotSpotTableSelection.Gathered?
                var layer: LayerFacts?
                var progress = FileScanProgress(scan, in: context)
                let outcome = try await scan.scan(neededFields: nil) { table -> (HotSpotTableSelection.Gathered, LayerFacts) in
                    let part = try HotSpotTableSelection.gather(from: table, whereClause: whereClause, timeExtent: timeExtent,
                                                                valueField: valueField, processing: processing)
                    return (part, LayerFacts(table))
                } consume: { part in
                    try context.checkCancellation()
                    await progress.chunkDelivered()
                    if gathered == nil {
                        gathered = part.0
                        layer = part.1
                    } else {
                        gathered?.append(part.0)
                    }
                }
                guard case .finished(let rows) = outcome else { continue }
                guard let gathered, let layer else { return nil }   // no chunk at all: an empty file, said by the loader
                let skipped = (scan as? JSONLinesFileScan)?.report.skippedCount ?? 0
                return prepared(gathered.selection(), path: path, layer: layer, rows: rows, skipped: skipped,
                                whereClause: whereClause, timeExtent: timeExtent)
            }
            throw AnalysisFailure("\(path): the file changed while it was read")
        } catch let error as FeatureLoadError {
            throw AnalysisFailure(error.description)
        } catch let error as HotSpotSelectionError {
            throw AnalysisFailure(error.description)
        }
    }

    /// The prepared points of a file and what the summary says of them.
    private static func prepared(_ selection: HotSpotTableSelection, path: String, layer: LayerFacts, rows: Int, skipped: Int,
                                 whereClause: String?, timeExtent: TimeExtent?) -> Prepared {
        let report = HotSpotSelectionReport(file: HotSpotSelectionReport.File(path: path, rows: rows, spatialReference: SpatialReference(code: layer.spatialReference)),
                                            timeField: layer.timeField.map { ReportedTimeField.fields(start: $0, end: nil) }, timeExtent: timeExtent,
                                            whereClause: whereClause, matched: selection.matchedCount, skippedWhileLoading: skipped)
        return Prepared(input: selection.input, reading: selection.reading, sourceIDs: selection.sourceIDs,
                        valueField: selection.valueField, selection: report)
    }

    /// What the summary says of the file's layer.
    private struct LayerFacts: Sendable {
        var spatialReference: Int?
        var timeField: String?

        init(_ table: FeatureTable) {
            spatialReference = table.spatialReference
            timeField = table.startTimeFieldIndex.map { table.schema.fields[$0].name }
        }
    }
}
