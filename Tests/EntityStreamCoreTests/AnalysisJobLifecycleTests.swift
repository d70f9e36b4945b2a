import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// An error whose description is its text.
private struct Refusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite("Analysis job lifecycle", .bounded(.io))
struct AnalysisJobLifecycleTests {
    /// A job publishes accepted, its reports, then exactly one summary; nothing after it.
    @Test func completes() {
        var job = AnalysisJobLifecycle()
        #expect(job.report() == .refuse(reason: "the job has not started"))
        #expect(job.start() == .publishAccepted)
        #expect(job.report() == .publish)
        let summary = AnalysisSummary(TestReport(JSONObject([("count", .int(2))])))
        #expect(job.finish(.completed(summary: summary)) == .publishFinal(.summary(summary)))
        #expect(job.report() == .refuse(reason: "the job has finished"))
        #expect(job.cancel() == .refuse(reason: "the job has already finished"))
        #expect(job.finish(.cancelled) == .refuse(reason: "the job is not running"))
    }

    /// Cancelling a running job cancels the work once; its end is reported as cancelled, even when it failed because of it.
    @Test func cancelWhileRunning() {
        var job = AnalysisJobLifecycle()
        _ = job.start()
        #expect(job.cancel() == .cancelWork)
        #expect(job.cancel() == .none)
        #expect(job.report() == .publish, "results already on their way still go out in order")
        #expect(job.finish(.failed(AnalysisJobFailure(Refusal("request cancelled")))) == .publishFinal(.cancelled))
        #expect(job.state == .finished(.cancelled))
    }

    /// Work that completed before it noticed the cancel reports its summary: the answer is whole.
    @Test func completionWinsOverALateCancel() {
        var job = AnalysisJobLifecycle()
        _ = job.start()
        _ = job.cancel()
        #expect(job.finish(.completed(summary: AnalysisSummary(TestReport()))) == .publishFinal(.summary(AnalysisSummary(TestReport()))))
    }

    /// A job cancelled before it started ends at once as cancelled, without an accepted line.
    @Test func cancelBeforeStart() {
        var job = AnalysisJobLifecycle()
        #expect(job.cancel() == .publishFinal(.cancelled))
        #expect(job.start() == .refuse(reason: "the job has already started"))
    }

    /// A failure outside cancellation is reported with its reason.
    @Test func failureCarriesItsReason() {
        var job = AnalysisJobLifecycle()
        _ = job.start()
        let failure = AnalysisJobFailure(Refusal("unknown field 'x'"))
        #expect(job.finish(.failed(failure)) == .publishFinal(.failed(failure)))
        #expect(AnalysisEvent.Content.failed(failure).members == JSONObject([("error", .string("unknown field 'x'"))]))
    }
}
