import EntityStream
import EntityStreamTestSupport
import Foundation
import Testing

/// Analyses compute on their own threads: at the process's priority unless
/// the program has a live stream to yield to, then at a low but not starving
/// one (a `SCHED_IDLE` thread gets about 0.3 % of a contended core, and a
/// nice-10 thread beside a dozen busy processes about 1 %, so one-shot
/// analyses of a tenth of a second took minutes on a busy machine).
@Suite("Analysis executor priority", .bounded)
struct AnalysisExecutorTests {
    /// The policy and nice value of the thread that runs a job on `executor`.
    static func priority(on executor: AnalysisExecutor) async -> (policy: Int32, nice: Int32) {
        await withTaskExecutorPreference(executor) {
            (sched_getscheduler(0), getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
    }

    static var processNice: Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test func oneShotAnalysesRunAtTheProcessPriority() async {
        let executor = AnalysisExecutor(threads: 1)
        let (policy, nice) = await Self.priority(on: executor)
        #expect(policy == SCHED_OTHER, "an analysis thread's policy is SCHED_OTHER, not SCHED_IDLE (5) or SCHED_BATCH")
        #expect(nice == Self.processNice)
    }

    @Test func analysesBesideALiveStreamRunNicedNotIdle() async {
        let executor = AnalysisExecutor(threads: 2)
        _ = await Self.priority(on: executor)
        executor.yieldToLiveStream()
        // Every thread takes the new value before its next job, also one that ran a job before.
        for _ in 0..<8 {
            let (policy, nice) = await Self.priority(on: executor)
            #expect(policy == SCHED_OTHER)
            #expect(nice == max(Self.processNice, AnalysisExecutor.liveStreamNice))
        }
        // One way only: a lower value later is ignored.
        executor.yieldToLiveStream(nice: 1)
        #expect(await Self.priority(on: executor).nice == max(Self.processNice, AnalysisExecutor.liveStreamNice))
    }
}
