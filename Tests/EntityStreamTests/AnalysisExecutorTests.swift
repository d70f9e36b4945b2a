import EntityStream
import EntityStreamTestSupport
import Foundation
import Testing

/// Analyses compute on their own threads at a low but not starving priority:
/// on a machine whose cores are busy with other work they still progress
/// (a `SCHED_IDLE` thread gets about 0.3 % of a contended core, so an
/// analysis of a tenth of a second took minutes there).
@Suite("Analysis executor priority", .bounded)
struct AnalysisExecutorTests {
    @Test func analysesRunNicedNotIdle() async {
        let (policy, nice) = await withTaskExecutorPreference(AnalysisExecutor.shared) {
            (sched_getscheduler(0), getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        let processNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #expect(policy == SCHED_OTHER, "an analysis thread's policy is SCHED_OTHER, not SCHED_IDLE (5) or SCHED_BATCH")
        #expect(nice == max(processNice, AnalysisExecutor.niceValue))
    }
}
