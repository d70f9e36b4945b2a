import EntityStreamTestSupport
import Testing
import EntityStreamModel
@testable import EntityStreamHotSpots

@Suite("GP job: the client's polling", .bounded)
struct GPJobPollerTests {
    static let policy = GPJobPollPolicy(initialInterval: 200, maximumInterval: 1_000, maximumConsecutiveErrors: 2)

    static func polling() -> GPJobPoller {
        var poller = GPJobPoller(policy: policy)
        _ = poller.submitted(GPSubmitJobResponse(jobID: "j1", status: .submitted), at: 0)
        return poller
    }

    static func info(_ status: GPJobStatus, messages: Int = 0, results: [String] = []) -> GPJobInfo {
        GPJobInfo(jobID: "j1", status: status, messages: (0..<messages).map { GPJobMessage(.informative, "m\($0)") },
                  results: results.map { GPParameterReference(name: $0, paramURL: "results/\($0)") })
    }

    /// Statuses in order, messages once each, back-off ×1.5 while unchanged and reset on change, results fetched.
    @Test func happyPath() {
        var poller = GPJobPoller(policy: Self.policy)
        #expect(poller.submitted(GPSubmitJobResponse(jobID: "j1", status: .submitted), at: 0)
            == [.statusChanged(from: nil, to: .submitted), .waitUntil(200)])
        #expect(poller.tick(at: 150) == [.waitUntil(200)])
        #expect(poller.tick(at: 200) == [.poll(jobID: "j1")])
        #expect(poller.received(Self.info(.submitted, messages: 1), at: 210) == [.newMessages([GPJobMessage(.informative, "m0")]), .waitUntil(510)])
        #expect(poller.received(Self.info(.submitted, messages: 1), at: 520) == [.waitUntil(970)])
        #expect(poller.received(Self.info(.executing, messages: 2), at: 980)
            == [.statusChanged(from: .submitted, to: .executing), .newMessages([GPJobMessage(.informative, "m1")]), .waitUntil(1_180)])
        #expect(poller.received(Self.info(.succeeded, messages: 3, results: ["Output_Features"]), at: 1_200) == [
            .statusChanged(from: .executing, to: .succeeded), .newMessages([GPJobMessage(.informative, "m2")]),
            .fetchResults(jobID: "j1", names: ["Output_Features"]), .finished(.succeeded),
        ])
        #expect(poller.phase == .finished(.succeeded))
        #expect(poller.tick(at: 5_000) == [] && poller.received(Self.info(.failed), at: 5_000) == [])
    }

    /// While nothing changes the interval grows by half up to the maximum.
    @Test func backOffIsCapped() {
        var poller = Self.polling()
        var now: Int64 = 200
        var intervals: [Int64] = []
        for _ in 0..<6 {
            guard case .waitUntil(let next)? = poller.received(Self.info(.executing), at: now).last else { Issue.record("no wait"); return }
            intervals.append(next - now)
            now = next
        }
        #expect(intervals == [200, 300, 450, 675, 1_000, 1_000])
    }

    /// Ctrl-C while polling sends cancel and polls on until the server says cancelled.
    @Test func cancelWhilePolling() {
        var poller = Self.polling()
        _ = poller.received(Self.info(.executing), at: 200)
        #expect(poller.cancel(at: 300) == [.sendCancel(jobID: "j1"), .waitUntil(500)])
        #expect(poller.phase == .cancelling)
        #expect(poller.received(Self.info(.cancelling), at: 500) == [.statusChanged(from: .executing, to: .cancelling), .waitUntil(700)])
        #expect(poller.received(Self.info(.cancelled), at: 700) == [.statusChanged(from: .cancelling, to: .cancelled), .finished(.cancelled)])
    }

    /// Ctrl-C before submitJob answered: the cancel goes out as soon as the job id is known.
    @Test func cancelBeforeSubmitted() {
        var poller = GPJobPoller(policy: Self.policy)
        #expect(poller.cancel(at: 0) == [])
        #expect(poller.submitted(GPSubmitJobResponse(jobID: "j1", status: .submitted), at: 10)
            == [.statusChanged(from: nil, to: .submitted), .sendCancel(jobID: "j1"), .waitUntil(210)])
    }

    /// A failed job finishes without fetching results.
    @Test func failedJob() {
        var poller = Self.polling()
        #expect(poller.received(Self.info(.failed, messages: 1), at: 200)
            == [.statusChanged(from: .submitted, to: .failed), .newMessages([GPJobMessage(.informative, "m0")]), .finished(.failed)])
    }

    /// Failed requests retry with back-off; one too many gives up; a response for another job counts as failed.
    @Test func unreachable() {
        var poller = Self.polling()
        let refused = GPRequestFailure.request(GPClientFailure(TestClientError.refused))
        #expect(poller.requestFailed(refused, at: 200) == [.waitUntil(500)])
        #expect(poller.received(GPJobInfo(jobID: "j9", status: .executing), at: 500) == [.waitUntil(950)])
        let cancelRefused = GPRequestFailure.cancel(GPClientFailure(TestClientError.refused))
        let third = poller.requestFailed(cancelRefused, at: 950)
        #expect(third == [.giveUp(.requestsFailed(count: 3, last: cancelRefused))])
        #expect(third != [.giveUp(.requestsFailed(count: 3, last: refused))])
        #expect(third != [.giveUp(.requestsFailed(count: 3, last: .cancel(GPClientFailure(TestClientError.timedOut))))])
        guard case .giveUp(let reason)? = third.first else { return }
        #expect(reason.description == "3 requests failed in a row; the last: cancel: connection refused")
        var never = GPJobPoller(policy: Self.policy)
        let submit = never.requestFailed(refused, at: 0)
        #expect(submit == [.giveUp(.submitFailed(refused))])
        #expect(GPJobGiveUp.submitFailed(refused).description == "submitJob failed: connection refused")
        #expect(GPRequestFailure.otherJob(answered: "j9", expected: "j1").description == "the server answered for job 'j9', not 'j1'")
    }

    /// The client-side timeout cancels the job and gives up; an unconfirmed cancel gives up after the grace.
    @Test func clientTimeouts() {
        var poller = GPJobPoller(policy: GPJobPollPolicy(initialInterval: 200, maximumInterval: 1_000, timeout: 1_000))
        _ = poller.submitted(GPSubmitJobResponse(jobID: "j1", status: .submitted), at: 0)
        _ = poller.received(Self.info(.executing), at: 700)   // next poll capped at the timeout
        #expect(poller.nextPollAt == 900)
        #expect(poller.received(Self.info(.executing), at: 900) == [.waitUntil(1_000)])
        #expect(poller.tick(at: 1_000) == [.sendCancel(jobID: "j1"), .giveUp(.timedOut(milliseconds: 1_000))])
        #expect(GPJobGiveUp.timedOut(milliseconds: 1_000).description == "no result within 1000 ms; cancel sent")
        var stubborn = GPJobPoller(policy: GPJobPollPolicy(initialInterval: 200, cancelGrace: 500))
        _ = stubborn.submitted(GPSubmitJobResponse(jobID: "j1", status: .executing), at: 0)
        _ = stubborn.cancel(at: 100)
        _ = stubborn.received(Self.info(.cancelling), at: 300)
        #expect(stubborn.tick(at: 600) == [.giveUp(.cancelUnconfirmed(graceMilliseconds: 500))])
        #expect(GPJobGiveUp.cancelUnconfirmed(graceMilliseconds: 500).description == "the server did not confirm the cancel within 500 ms")
    }
}

/// A client error for the tests: the poller keeps it typed.
enum TestClientError: GPClientError {
    case refused
    case timedOut

    var description: String {
        switch self {
        case .refused: return "connection refused"
        case .timedOut: return "timed out"
        }
    }
}
