import EntityStreamCore
import EntityStreamTestSupport
import Testing
@testable import EntityStreamHotSpots
import EntityStreamModel

@Suite("GP job: the remote conversation's state machine", .bounded)
struct GPJobConversationTests {
    static let policy = GPJobPollPolicy(initialInterval: 200, maximumInterval: 1_000, maximumConsecutiveErrors: 2)

    static func info(_ status: GPJobStatus, messages: [GPJobMessage] = [], results: [String] = []) -> GPJobInfo {
        GPJobInfo(jobID: "j1", status: status, messages: messages, results: results.map { GPParameterReference(name: $0, paramURL: "results/\($0)") })
    }

    static func started(_ status: GPJobStatus = .submitted, resultName: String = "Output_Features") -> (GPJobConversation, GPJobConversation.Action) {
        var machine = GPJobConversation(submitted: GPSubmitJobResponse(jobID: "j1", status: status), policy: policy, resultName: resultName, at: 0)
        let first = machine.start(at: 0, cancelRequested: false)
        return (machine, first)
    }

    /// A feature in bin `bin`.
    static func feature(bin: Int) -> AnalysisFeature {
        AnalysisFeature(geometry: nil, attributes: JSONObject([("Gi_Bin", .int(Int64(bin)))]))
    }

    /// Submitted → report, wait, poll; executing with a message → one report; succeeded → report, fetch the preferred result, end with its counts.
    @Test func happyPath() {
        var (machine, action) = Self.started()
        #expect(action == .report(.submitted, messages: []))
        #expect(machine.reported(at: 1, cancelRequested: false) == .wait(until: 200))
        #expect(machine.woke(at: 150, cancelRequested: false) == .wait(until: 200))
        #expect(machine.woke(at: 200, cancelRequested: false) == .poll(jobID: "j1"))
        let started = GPJobMessage(.informative, "Executing")
        #expect(machine.received(Self.info(.executing, messages: [started]), at: 210, cancelRequested: false) == .report(.executing, messages: [started]))
        #expect(machine.reported(at: 211, cancelRequested: false) == .wait(until: 410))
        #expect(machine.woke(at: 410, cancelRequested: false) == .poll(jobID: "j1"))
        let done = GPJobMessage(.informative, "Succeeded")
        action = machine.received(Self.info(.succeeded, messages: [started, done], results: ["Other", "Output_Features"]), at: 420, cancelRequested: false)
        #expect(action == .report(.succeeded, messages: [done]))
        #expect(machine.reported(at: 421, cancelRequested: false) == .fetchResult(jobID: "j1", name: "Output_Features"))
        let set = GPFeatureRecordSet(geometryType: "esriGeometryPoint", wkid: 102100,
                                     features: [3, 3, -2, 0, 1].map { Self.feature(bin: $0) })
        action = machine.fetched(set, name: "Output_Features", at: 430, cancelRequested: false)
        var bins = HotSpotBinCounts()
        bins[3] = 2; bins[-2] = 1; bins[0] = 1; bins[1] = 1
        #expect(action == .end(.succeeded(GPJobResult(jobID: "j1", resultName: "Output_Features", outputWKID: 102100, features: 5, messages: 2, bins: bins))))
        #expect(machine.woke(at: 5_000, cancelRequested: true) == action)
    }

    /// Without the preferred result the job's first is fetched; with none, the summary has no features.
    @Test func resultChoice() {
        var (machine, _) = Self.started(.executing)
        _ = machine.reported(at: 0, cancelRequested: false)
        _ = machine.woke(at: 200, cancelRequested: false)
        _ = machine.received(Self.info(.succeeded, results: ["Hot", "Cold"]), at: 210, cancelRequested: false)
        #expect(machine.reported(at: 211, cancelRequested: false) == .fetchResult(jobID: "j1", name: "Hot"))

        var (bare, _) = Self.started(.executing)
        _ = bare.reported(at: 0, cancelRequested: false)
        _ = bare.woke(at: 200, cancelRequested: false)
        #expect(bare.received(Self.info(.succeeded), at: 210, cancelRequested: false) == .report(.succeeded, messages: []))
        #expect(bare.reported(at: 211, cancelRequested: false)
            == .end(.succeeded(GPJobResult(jobID: "j1", resultName: nil, outputWKID: nil, features: 0, messages: 0, bins: HotSpotBinCounts()))))
    }

    /// A cancel asked for during a wait is sent at once; the server's cancelling and cancelled are reported; the end is cancelled.
    @Test func cancelDuringWait() {
        var (machine, _) = Self.started(.executing)
        #expect(machine.reported(at: 0, cancelRequested: false) == .wait(until: 200))
        #expect(machine.woke(at: 50, cancelRequested: true) == .sendCancel(jobID: "j1"))
        #expect(machine.received(Self.info(.cancelling), at: 60, cancelRequested: true) == .report(.cancelling, messages: []))
        #expect(machine.reported(at: 61, cancelRequested: true) == .wait(until: 260))
        #expect(machine.woke(at: 260, cancelRequested: true) == .poll(jobID: "j1"))
        #expect(machine.received(Self.info(.cancelled), at: 270, cancelRequested: true) == .report(.cancelled, messages: []))
        #expect(machine.reported(at: 271, cancelRequested: true) == .end(.cancelled))
    }

    /// A job that fails ends with its status and its error messages (not the informative ones).
    @Test func failedJobCarriesItsErrors() {
        var (machine, _) = Self.started(.executing)
        _ = machine.reported(at: 0, cancelRequested: false)
        _ = machine.woke(at: 200, cancelRequested: false)
        let messages = [GPJobMessage(.informative, "Start"), GPJobMessage(.error, "ERROR 000735: Input is required")]
        #expect(machine.received(Self.info(.failed, messages: messages), at: 210, cancelRequested: false) == .report(.failed, messages: messages))
        #expect(machine.reported(at: 211, cancelRequested: false) == .end(.ended(.failed, errors: ["ERROR 000735: Input is required"])))
    }

    /// Requests failing more often in a row than the policy allows give up, naming the last reason.
    @Test func givesUpAfterFailedRequests() {
        var (machine, _) = Self.started(.executing)
        _ = machine.reported(at: 0, cancelRequested: false)
        #expect(machine.woke(at: 200, cancelRequested: false) == .poll(jobID: "j1"))
        let unavailable = GPRequestFailure.request(GPClientFailure(TestClientError.timedOut))
        #expect(machine.requestFailed(unavailable, at: 210, cancelRequested: false) == .wait(until: 510))
        #expect(machine.woke(at: 510, cancelRequested: false) == .poll(jobID: "j1"))
        #expect(machine.requestFailed(unavailable, at: 520, cancelRequested: false) == .wait(until: 970))
        #expect(machine.woke(at: 970, cancelRequested: false) == .poll(jobID: "j1"))
        let refused = GPRequestFailure.request(GPClientFailure(TestClientError.refused))
        #expect(machine.requestFailed(refused, at: 980, cancelRequested: false) == .end(.gaveUp(.requestsFailed(count: 3, last: refused))))
    }

    /// A cancel asked for after the job succeeded skips the result fetch: the summary counts nothing.
    @Test func cancelBeforeTheFetchSkipsIt() {
        var (machine, _) = Self.started(.executing)
        _ = machine.reported(at: 0, cancelRequested: false)
        _ = machine.woke(at: 200, cancelRequested: false)
        #expect(machine.received(Self.info(.succeeded, results: ["Output_Features"]), at: 210, cancelRequested: false) == .report(.succeeded, messages: []))
        guard case .end(.succeeded(let result)) = machine.reported(at: 211, cancelRequested: true) else {
            Issue.record("expected the succeeded end"); return
        }
        #expect(result.features == 0 && result.resultName == nil)
    }
}
