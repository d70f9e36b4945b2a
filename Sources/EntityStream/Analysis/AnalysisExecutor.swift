import Foundation

/// Where analyses compute: a few dedicated threads at the lowest CPU
/// priority (Linux `SCHED_IDLE`, else nice 19), used as the task executor
/// preference of every job. Their CPU-heavy work (scans, statistics, Gi*)
/// then never competes with ingestion on the shared cooperative pool, and
/// the kernel gives it only the CPU the stream leaves free: analyses run
/// beside the stream without slowing it. Awaits inside a job (actors, I/O)
/// hop away and come back here. Thread-safe; the threads live as long as
/// the process.
public final class AnalysisExecutor: TaskExecutor, @unchecked Sendable {
    /// One executor for the process, with one thread per core (at most 4).
    public static let shared = AnalysisExecutor(threads: min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0

    init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in
                Self.lowerPriority()
                self.work()
            }
            thread.name = "entitystream-analysis-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// `SCHED_IDLE` for the calling thread; nice 19 when that is refused.
    private static func lowerPriority() {
        #if os(Linux)
        let schedIdle: Int32 = 5   // SCHED_IDLE in <sched.h> (a GNU extension Swift does not import)
        var parameters = sched_param()
        parameters.sched_priority = 0
        if pthread_setschedparam(pthread_self(), schedIdle, &parameters) != 0 {
            // On Linux the nice value is per thread: `who` 0 is the calling thread.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        }
        #endif
    }
}
