import EntityStreamTestSupport
import Testing
@testable import EntityStreamHotSpots

@Suite("GP job: the state machine", .bounded(.io))
struct GPJobTests {
    static func submitted(delay: Int64 = 500, limit: Int64? = nil) throws -> GPJob {
        try GPJob.submit(id: "j42", at: 1_000, timing: GPJobTiming(startDelay: delay, executionLimit: limit)).job
    }

    static func executing(limit: Int64? = nil) throws -> GPJob {
        var job = try submitted(limit: limit)
        _ = try job.start(at: 1_100)
        return job
    }

    /// Submitted → (tick at the start delay) executing → succeeded, with the actions and messages of each step.
    @Test func happyPath() throws {
        let (created, initial) = try GPJob.submit(id: "j42", at: 1_000, timing: GPJobTiming(startDelay: 500))
        var job = created
        #expect(initial == [.publish(.submitted), .wakeUp(at: 1_500)])
        #expect(job.status == .submitted && job.nextDeadline == 1_500)
        #expect(job.tick(at: 1_499) == [.wakeUp(at: 1_500)])
        #expect(job.status == .submitted)
        #expect(job.tick(at: 1_500) == [.publish(.executing), .startWork])
        #expect(job.startedAt == 1_500 && job.nextDeadline == nil)
        try job.note("Using a distance band of 1,200 feet.")
        #expect(try job.succeed(results: ["Output_Features"], at: 2_000) == [.publish(.succeeded)])
        #expect(job.status == .succeeded && job.results == ["Output_Features"] && job.finishedAt == 2_000)
        #expect(job.messages.map(\.description) == ["Submitted.", "Executing...", "Using a distance band of 1,200 feet.", "Succeeded."])
        #expect(job.tick(at: 9_999) == [])
    }

    /// Cancelling a submitted or waiting job ends it at once: nothing runs, so there is no work to cancel.
    @Test func cancelBeforeExecuting() throws {
        var job = try Self.submitted()
        #expect(try job.cancel(at: 1_200) == [.publish(.cancelled)])
        #expect(job.status == .cancelled && job.finishedAt == 1_200 && job.nextDeadline == nil)
        var waiting = try Self.submitted()
        #expect(try waiting.queue(at: 1_050) == [.publish(.waiting)])
        #expect(try waiting.cancel(at: 1_060) == [.publish(.cancelled)])
        #expect(waiting.tick(at: 5_000) == [])
    }

    /// Cancelling an executing job asks the work to stop; a second cancel does nothing; the stop confirms it.
    @Test func cancelWhileExecuting() throws {
        var job = try Self.executing()
        #expect(try job.cancel(at: 1_200) == [.publish(.cancelling), .cancelWork])
        #expect(job.status == .cancelling)
        #expect(try job.cancel(at: 1_201) == [])
        #expect(try job.workStopped(at: 1_300) == [.publish(.cancelled)])
        #expect(job.status == .cancelled && job.messages.last?.description == "Cancelled.")
    }

    /// Work that finishes (or fails) while cancelling still ends the job cancelled, its result discarded.
    @Test func finishingWhileCancelling() throws {
        var job = try Self.executing()
        _ = try job.cancel(at: 1_200)
        #expect(try job.succeed(results: ["Output_Features"], at: 1_250) == [.publish(.cancelled)])
        #expect(job.status == .cancelled && job.results.isEmpty)
        var failing = try Self.executing()
        _ = try failing.cancel(at: 1_200)
        #expect(try failing.fail("CancellationError", at: 1_250) == [.publish(.cancelled)])
    }

    /// A failure ends the job failed, with the error as an error message.
    @Test func failure() throws {
        var job = try Self.executing()
        #expect(try job.fail("zero variance", at: 1_500) == [.publish(.failed)])
        #expect(job.status == .failed && job.status.isFailure)
        #expect(job.messages.suffix(2) == [GPJobMessage(.error, "zero variance"), GPJobMessage(.error, "Failed.")])
    }

    /// Past its execution limit a job times out and its work is cancelled; before, tick only re-arms the wake-up.
    @Test func timeout() throws {
        var job = try Self.submitted(limit: 1_000)
        #expect(try job.start(at: 1_100) == [.publish(.executing), .startWork, .wakeUp(at: 2_100)])
        #expect(job.tick(at: 2_099) == [.wakeUp(at: 2_100)])
        #expect(job.tick(at: 2_100) == [.cancelWork, .publish(.timedOut)])
        #expect(job.status == .timedOut && job.messages.last == GPJobMessage(.error, "Timed out after 1000 ms."))
        #expect(throws: GPJobError.illegalTransition(from: .timedOut, event: "succeed")) {
            var copy = job
            _ = try copy.succeed(results: [], at: 2_200)
        }
    }

    /// Transitions outside the diagram are refused and leave the job unchanged.
    @Test func illegalTransitions() throws {
        let submitted = try Self.submitted()
        let executing = try Self.executing()
        var finished = try Self.executing()
        _ = try finished.succeed(results: [], at: 1_500)
        let cases: [(GPJob, String, (inout GPJob) throws(GPJobError) -> Void)] = [
            (submitted, "succeed", { job throws(GPJobError) in _ = try job.succeed(results: [], at: 0) }),
            (submitted, "fail", { job throws(GPJobError) in _ = try job.fail("x", at: 0) }),
            (submitted, "stop its work", { job throws(GPJobError) in _ = try job.workStopped(at: 0) }),
            (executing, "start", { job throws(GPJobError) in _ = try job.start(at: 0) }),
            (executing, "wait", { job throws(GPJobError) in _ = try job.queue(at: 0) }),
            (executing, "stop its work", { job throws(GPJobError) in _ = try job.workStopped(at: 0) }),
            (finished, "cancel", { job throws(GPJobError) in _ = try job.cancel(at: 0) }),
            (finished, "start", { job throws(GPJobError) in _ = try job.start(at: 0) }),
            (finished, "add a message", { job throws(GPJobError) in try job.note("late") }),
        ]
        for (original, event, transition) in cases {
            var job = original
            #expect(throws: GPJobError.illegalTransition(from: original.status, event: event)) { try transition(&job) }
            #expect(job == original)
        }
        #expect(GPJobError.illegalTransition(from: .succeeded, event: "cancel").description == "a job that is esriJobSucceeded cannot cancel")
    }

    /// Job ids go into URLs: only 1–128 of A–Z a–z 0–9 _ - are accepted; deadlines saturate instead of trapping.
    @Test func idsAndDeadlines() throws {
        for bad in ["", "a/b", "j 1", "../x", String(repeating: "a", count: 129), "é"] {
            #expect(throws: GPJobError.invalidJobID(bad)) { _ = try GPJob.submit(id: bad, at: 0) }
        }
        let far = try GPJob.submit(id: "jFar", at: .max - 5, timing: GPJobTiming(startDelay: 100)).job
        #expect(far.startAt == .max)
        #expect(GPJobTiming(startDelay: -5, executionLimit: -1) == GPJobTiming(startDelay: 0, executionLimit: 0))
    }

    /// Statuses parse only in their wire spellings; the terminal ones are exactly ArcGIS's.
    @Test func statuses() throws {
        for status in GPJobStatus.allCases { #expect(try GPJobStatus(parsing: status.rawValue) == status) }
        #expect(throws: GPRESTError.unknownStatus("esriJobRunning")) { try GPJobStatus(parsing: "esriJobRunning") }
        #expect(Set(GPJobStatus.allCases.filter(\.isTerminal)) == [.succeeded, .failed, .timedOut, .cancelled, .deleted, .expectedFailure])
    }
}
