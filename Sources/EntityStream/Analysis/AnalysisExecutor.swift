import Foundation

/// Where analyses compute: a few dedicated threads at a low CPU priority
/// (nice ``niceValue``), used as the task executor preference of every job.
/// Their CPU-heavy work (scans, statistics, Gi*) then never competes with
/// ingestion on the shared cooperative pool, and where a core is contended
/// the kernel gives an analysis thread about a tenth of it (weight 110
/// against the stream's 1024): analyses run beside the stream without
/// slowing it much, and still finish on a machine busy with other work
/// (`SCHED_IDLE` or nice 19 would starve them there for minutes). Awaits inside a job (actors, I/O)
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

    /// The nice value of the analysis threads.
    public static let niceValue: Int32 = 10

    /// ``niceValue`` for the calling thread (never below the process's own).
    private static func lowerPriority() {
        #if os(Linux)
        // On Linux the nice value is per thread: `who` 0 is the calling thread.
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, max(current, niceValue))
        #endif
    }
}
