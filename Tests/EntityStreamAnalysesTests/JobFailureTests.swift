import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamStatistics
@testable import EntityStreamAnalyses

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "t", type: .date), Field(name: "speed", type: .double)],
                            trackIDField: "id", startTimeField: "t")

/// The failure of a job's final line (nil when it did not fail).
private func failure(_ events: [AnalysisEvent]) -> AnalysisJobFailure? {
    events.last?.failure
}

/// A scan of a real file that says, every time it is read, that the file's
/// values call for another layout: what a file rewritten under the job looks like.
private final class ChangingScan: FeatureFileScan {
    let inner: any FeatureFileScan

    init(_ inner: any FeatureFileScan) { self.inner = inner }

    var path: String { inner.path }
    var fileSize: Int { inner.fileSize }
    var position: ScanPosition { inner.position }
    var schema: Schema { inner.schema }
    var assignsObjectIDs: Bool { inner.assignsObjectIDs }
    var hasGeometry: Bool { inner.hasGeometry }

    func scan<Partial: Sendable>(neededFields: Set<Int>?, filter: FeatureRowFilter?, readsGeometry: Bool, workers: Int,
                                 process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                 consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome {
        .layoutChanged
    }

    func aggregate<Sink: FeatureRowSink>(neededFields: Set<Int>, filter: FeatureRowFilter, workers: Int,
                                         makeSink: @escaping @Sendable () -> Sink,
                                         consume: (Sink) async throws -> Void) async throws -> CSVFileScan.Outcome {
        .layoutChanged
    }

    func scanSettlingLayout<Partial: Sendable>(neededFields: Set<Int>?, workers: Int,
                                               process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                               consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome {
        .layoutChanged
    }

    func emptyTable() throws(FeatureLoadError) -> FeatureTable { try inner.emptyTable() }
    func verifyLayout(neededFields: Set<Int>?, workers: Int) async throws {}
}

/// Runs a file job's streamed path on a scan the test gives.
private struct StreamedRun: AnalysisJob {
    let scan: any FeatureFileScan
    let statistics: FileStatisticsJob?
    let query: FileQueryJob?

    func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        if let statistics { return try await statistics.runStreamed(scan, in: context) }
        return try await query!.runStreamed(scan, in: context)
    }
}

/// A failed job's line carries the error its work threw, typed: an engine's
/// own error as it is, or an ``AnalysisJobError`` case that adds the file or
/// the parameter, never its text in a message-only wrapper. The `error` text
/// of each line is written here by hand, as users and the README see it.
@Suite("Failed jobs keep their typed errors", .bounded(.io))
struct JobFailureTests {
    /// query-observations: a bad where clause is the clause's error at its
    /// position under the `where` parameter; unknown or unusable fields are
    /// cases naming the parameter, the field and the schema's fields; a bad
    /// order is the order's own error.
    @Test func storeQueryErrorsAreCases() async throws {
        let harness = await AnalysisHarness(schema: schema)
        await harness.ingest([Observation(geometry: Point(x: 1, y: 2, wkid: 4326),
                                          attributes: [.string("A"), .date(milliseconds: 100), .double(10)], receivedAt: harness.clock.now())])

        let badWhere = try #require(failure(AnalysisHarness.analyses(await harness.command(
            #"{"id":1,"command":"query-observations","where":"speed > 3 AND heading > 3"}"#))))
        guard case .parameter("where", let underlying)? = badWhere.error as? AnalysisJobError else {
            Issue.record("not a where parameter error: \(type(of: badWhere.error)) \(badWhere.text)"); return
        }
        let clause = try #require(underlying as? WhereClauseError)
        #expect(clause.position == 15 && clause.near == "heading > 3")
        #expect(badWhere.text == #"where: where clause error at position 15: unknown field 'heading' (near "heading > 3")"#)

        let unknownTime = try #require(failure(AnalysisHarness.analyses(await harness.command(
            #"{"id":2,"command":"query-observations","timeField":"speed2"}"#))))
        guard case .unknownTimeField("speed2", let known)? = unknownTime.error as? AnalysisJobError else {
            Issue.record("not an unknown time field: \(unknownTime.text)"); return
        }
        #expect(known == ["id", "t", "speed"])
        #expect(unknownTime.text == "timeField: unknown field 'speed2' (received, or one of id, t, speed)")

        let notTime = try #require(failure(AnalysisHarness.analyses(await harness.command(
            #"{"id":3,"command":"query-observations","timeField":"id"}"#))))
        guard case .notTimeField("id", .string)? = notTime.error as? AnalysisJobError else {
            Issue.record("not a field without times: \(notTime.text)"); return
        }
        #expect(notTime.text == "timeField: 'id' is esriFieldTypeString, not a date or a number of epoch milliseconds")

        let unknownOut = try #require(failure(AnalysisHarness.analyses(await harness.command(
            #"{"id":4,"command":"query-observations","outFields":"speed,gust"}"#))))
        guard case .unknownField("outFields", "gust", ["id", "t", "speed"])? = unknownOut.error as? AnalysisJobError else {
            Issue.record("not an unknown out field: \(unknownOut.text)"); return
        }
        #expect(unknownOut.text == "outFields: unknown field 'gust' (fields: id, t, speed)")

        let badOrder = try #require(failure(AnalysisHarness.analyses(await harness.command(
            #"{"id":5,"command":"query-observations","orderBy":"gust"}"#))))
        #expect(badOrder.error as? ObservationOrderError == .unknownField("gust", fields: ["id", "t", "speed"]))
        #expect(badOrder.text == "orderBy: unknown field 'gust' (time, received, or one of id, t, speed)")
        await harness.close()
    }

    /// A file's jobs: a where clause the file's fields cannot answer is the
    /// query engine's `.whereClause`, the clause's error at its position; a
    /// statistic on an unknown field is the statistics plan's own case.
    @Test func fileJobErrorsAreTheEnginesOwn() async throws {
        let path = try TestFiles.temporary(Array("id,speed,x,y\n1,2.5,10,20\n2,3.5,11,21\n".utf8), prefix: "failure", suffix: "csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let harness = await AnalysisHarness(schema: Schema(fields: []))

        var query = FeatureQuery(whereClause: "speed > 3 AND heading > 3")
        query.returnCountOnly = true
        let badWhere = try #require(failure(try await harness.run(FileQueryJob(path: path, query: query), command: "query")))
        guard case .whereClause(let clause)? = badWhere.error as? FeatureQueryError else {
            Issue.record("not the engine's where clause error: \(type(of: badWhere.error)) \(badWhere.text)"); return
        }
        #expect(clause.position == 15 && clause.near == "heading > 3")
        #expect(badWhere.text == #"'where' parameter is invalid: where clause error at position 15: unknown field 'heading' (near "heading > 3")"#)

        let request = try StatisticsRequest(statisticSpecs: ["avg:gust"])
        let badField = try #require(failure(try await harness.run(FileStatisticsJob(path: path, request: request))))
        guard case .unknownStatisticField("gust", _)? = badField.error as? StatisticsError else {
            Issue.record("not the plan's unknown field: \(type(of: badField.error)) \(badField.text)"); return
        }
        await harness.close()
    }

    /// A file whose layout changes on each of the two reads fails as
    /// `.fileChanged(path)`, for statistics and for a count.
    @Test func aChangedFileIsItsOwnCase() async throws {
        let path = try TestFiles.temporary(Array("id,speed,x,y\n1,2.5,10,20\n".utf8), prefix: "failure", suffix: "csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = ChangingScan(try #require(try await FeatureFileScans.open(path: path)))
        let harness = await AnalysisHarness(schema: Schema(fields: []))

        let request = try StatisticsRequest(statisticSpecs: ["count:*"])
        let statistics = try #require(failure(try await harness.run(StreamedRun(scan: scan, statistics: FileStatisticsJob(path: path, request: request), query: nil))))
        guard case .fileChanged(let changed)? = statistics.error as? AnalysisJobError else {
            Issue.record("not a changed file: \(type(of: statistics.error)) \(statistics.text)"); return
        }
        #expect(changed == path)
        #expect(statistics.text == "\(path): the file changed while it was read")

        var count = FeatureQuery()
        count.returnCountOnly = true
        let query = try #require(failure(try await harness.run(StreamedRun(scan: scan, statistics: nil, query: FileQueryJob(path: path, query: count)),
                                                               command: "query")))
        guard case .fileChanged(path)? = query.error as? AnalysisJobError else {
            Issue.record("not a changed file: \(type(of: query.error)) \(query.text)"); return
        }
        await harness.close()
    }
}
