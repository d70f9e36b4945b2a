import EntityStream
import EntityStreamAnalyses
import EntityStreamCore
import EntityStreamFeatures
import EntityStreamHotSpots
import EntityStreamStatistics
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// The members as the JSON line writes them (compact, in order).
private func text(_ members: JSONObject) -> String { JSONValue.object(members).description }

private let day = try! TimeExtent(start: 0, end: 86_400_000)

/// The typed summaries and progress lines render the members the analysis
/// lines have always carried, in the same order; the expected lines are
/// written by hand.
@Suite("Analysis reports", .bounded)
struct AnalysisReportTests {
    /// A file query's rows are written only when the file was read to its end; an extent query writes its
    /// count (when asked) before the extent, null for no feature; the time extent comes last.
    @Test func fileQuery() {
        let limited = FileQueryReport(file: "a.csv", rows: nil, answer: .count(5), timeExtent: nil)
        #expect(text(limited.members) == #"{"file":"a.csv","count":5}"#)
        let whole = FileQueryReport(file: "a.csv", rows: 9, answer: .count(2), timeExtent: day)
        #expect(text(whole.members) == #"{"file":"a.csv","rows":9,"count":2,"timeExtent":{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-02T00:00:00.000Z"}}"#)
        let extent = FileQueryReport(file: "a.csv", rows: 9, answer: .extent(Envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4), count: 7), timeExtent: nil)
        #expect(text(extent.members) == #"{"file":"a.csv","rows":9,"count":7,"extent":[1.0,2.0,3.0,4.0]}"#)
        let none = FileQueryReport(file: "a.csv", rows: 0, answer: .extent(nil, count: nil), timeExtent: nil)
        #expect(text(none.members) == #"{"file":"a.csv","rows":0,"extent":null}"#)
        #expect(whole.columns == nil && whole.incompleteInput == nil)
    }

    /// A count of observations says no matched/exceededLimit; a limited query says whether the limit left matches out.
    @Test func observationQuery() {
        let counted = ObservationQueryReport(timeField: .received, timeExtent: .unbounded, count: 3)
        #expect(text(counted.members) == #"{"timeField":"received","timeExtent":{"start":null,"end":null},"count":3}"#)
        let limited = ObservationQueryReport(timeField: .fields(start: "t0", end: "t1"), timeExtent: .unbounded, count: 3, matched: 8)
        #expect(text(limited.members) == #"{"timeField":"t0,t1","timeExtent":{"start":null,"end":null},"count":3,"matched":8,"exceededLimit":true}"#)
        #expect(!ObservationQueryReport(timeField: .fields(start: "t", end: nil), timeExtent: .unbounded, count: 3, matched: 3).exceededLimit)
    }

    /// Store statistics write the group limit only when rows went over it and the time extent only when bounded;
    /// the table's columns are the group fields, then the statistic names.
    @Test func storeStatistics() {
        let names = StatisticsNames(groupFields: ["team"], statisticNames: ["n", "avg_speed"])
        var report = StoreStatisticsReport(of: .observations, rows: 10, groups: 2, records: 2, ignoredValues: 1, rowsOverGroupLimit: 0,
                                           groupLimit: 100, names: names, timeField: .received, timeExtent: .unbounded)
        #expect(text(report.members) == #"{"of":"observations","rows":10,"groups":2,"records":2,"ignoredValues":1,"rowsOverGroupLimit":0,"groupFields":["team"],"statisticNames":["n","avg_speed"],"timeField":"received"}"#)
        #expect(report.columns == ["team", "n", "avg_speed"] && AnalysisSummary(report).columns == ["team", "n", "avg_speed"])
        report.rowsOverGroupLimit = 4
        report.timeExtent = day
        #expect(text(report.members) == #"{"of":"observations","rows":10,"groups":2,"records":2,"ignoredValues":1,"rowsOverGroupLimit":4,"groupLimit":100,"groupFields":["team"],"statisticNames":["n","avg_speed"],"timeField":"received","timeExtent":{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-02T00:00:00.000Z"}}"#)
    }

    /// A layer's statistics say when the having clause was applied here, then how the answer was paged.
    @Test func layerStatistics() {
        let paging = LayerPaging(FeatureQuerySummary(featureCount: 5, pageCount: 2, requestCount: 3, strategy: .pages(size: 4)))
        let names = StatisticsNames(groupFields: [], statisticNames: ["n"])
        let server = LayerStatisticsReport(layer: "http://x/0", records: 5, groupsDroppedByHaving: nil, paging: paging, names: names, timeExtent: nil)
        #expect(text(server.members) == #"{"layer":"http://x/0","records":5,"pages":2,"requests":3,"paging":"resultOffset","pageSize":4,"groupFields":[],"statisticNames":["n"]}"#)
        let here = LayerStatisticsReport(layer: "http://x/0", records: 3, groupsDroppedByHaving: 2,
                                         paging: LayerPaging(FeatureQuerySummary(featureCount: 5, pageCount: 1, requestCount: 1, strategy: .single)),
                                         names: names, timeExtent: nil)
        #expect(text(here.members) == #"{"layer":"http://x/0","records":3,"havingAppliedLocally":true,"groupsDroppedByHaving":2,"pages":1,"requests":1,"paging":"none","groupFields":[],"statisticNames":["n"]}"#)
    }

    /// A hot-spot selection from a file names the file first and its skipped records last; from the store,
    /// only the time field, where clause and matches (an unbounded time extent is not written).
    @Test func hotSpotSelection() {
        let file = HotSpotSelectionReport(file: .init(path: "b.csv", rows: 12, spatialReference: nil), timeField: .fields(start: "occ_date", end: nil),
                                          timeExtent: day, whereClause: "x > 1", matched: 10, skippedWhileLoading: 2)
        var members = JSONObject()
        file.append(to: &members)
        #expect(text(members) == #"{"file":"b.csv","rows":12,"timeField":"occ_date","timeExtent":{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-02T00:00:00.000Z"},"where":"x > 1","matched":10,"skippedWhileLoading":2}"#)
        let store = HotSpotSelectionReport(file: nil, timeField: .received, timeExtent: .unbounded, whereClause: nil, matched: 4)
        members = JSONObject()
        store.append(to: &members)
        #expect(text(members) == #"{"timeField":"received","matched":4}"#)
    }

    /// A geoprocessing job's status line carries its new messages; an engine line its fraction (to thousandths)
    /// and stage. Only status lines are kept by a one-shot hotspots command; a terminal shows messages by their text.
    @Test func geoprocessingProgress() {
        let status = GPJobProgress(jobID: "j1", status: .executing, messages: [GPJobMessage(.informative, "Executing...")])
        #expect(text(status.members) == #"{"jobId":"j1","jobStatus":"esriJobExecuting","messages":[{"type":"esriJobMessageTypeInformative","description":"Executing..."}]}"#)
        #expect(status.isStatusLine && status.text == "jobId j1 · jobStatus esriJobExecuting · Executing...")
        let engine = GPJobProgress(jobID: "j1", status: .executing, engine: .init(fraction: 0.41961, stage: .computingGiStar))
        #expect(text(engine.members) == #"{"jobId":"j1","jobStatus":"esriJobExecuting","fraction":0.42,"stage":"computingGiStar"}"#)
        #expect(!engine.isStatusLine && engine.text == "jobId j1 · jobStatus esriJobExecuting · fraction 0.42 · stage computingGiStar")
        #expect(PagesProgress(pages: 3, count: 2000, unit: .features).text == "pages 3 · features 2000")
    }

    /// A summary line writes the report's members, then the stream it ran beside; each phase's content renders
    /// its own members (accepted: the stream's status; failed: the error's text).
    @Test func summaryAndPhases() {
        let report = TestReport(JSONObject([("count", .int(3))]))
        var summary = AnalysisSummary(report)
        #expect(text(summary.members) == #"{"count":3}"#)
        summary.stream = AnalysisStreamFacts(status: .replaying, snapshot: .init(asOf: 86_400_000, entities: 2, observations: 5))
        #expect(text(summary.members) == #"{"count":3,"stream":{"status":"replaying","asOf":"1970-01-02T00:00:00.000Z","asOfEpoch":86400000,"entities":2,"observations":5}}"#)
        summary.stream = AnalysisStreamFacts(status: nil)
        #expect(text(summary.members) == #"{"count":3}"#, "nothing known of the stream: no member")
        #expect(text(AnalysisEvent.Content.accepted(stream: .connection(.connected)).members) == #"{"stream":{"status":"connected"}}"#)
        #expect(AnalysisEvent.Content.accepted(stream: nil).members.isEmpty && AnalysisEvent.Content.cancelled.members.isEmpty)
        let failure = AnalysisJobFailure(AnalysisFailure("unknown field 'x'"))
        #expect(text(AnalysisEvent.Content.failed(failure).members) == #"{"error":"unknown field 'x'"}"#)
        #expect(failure.error is AnalysisFailure)
        let phases = [AnalysisEvent.Content.accepted(stream: nil), .progress(AnyAnalysisProgress(NoteProgress("n"))), .summary(summary), .failed(failure), .cancelled].map(\.phase)
        #expect(phases == [.accepted, .progress, .summary, .failed, .cancelled])
        #expect(AnyAnalysisProgress(NoteProgress("a")) != AnyAnalysisProgress(NoteProgress("b")))
        #expect(AnyAnalysisProgress(NoteProgress("a")) == AnyAnalysisProgress(NoteProgress("a")))
        #expect(AnyAnalysisProgress(NoteProgress("3")) != AnyAnalysisProgress(PagesProgress(pages: 3, count: 1, unit: .records)))
    }
}
