import Foundation

/// Where analyses compute: a few dedicated threads, used as the task
/// executor preference of every job, so that their CPU-heavy work (scans,
/// statistics, Gi*) never competes with ingestion on the shared cooperative
/// pool. Awaits inside a job (actors, I/O) hop away and come back here.
///
/// Priority is the program's choice. A program with a live stream to protect
/// (`entitystream connect`, `replay`, `demo`, `consume`, `serve`) calls
/// ``yieldToLiveStream(nice:)``: from their next job on, the threads run at
/// nice ``liveStreamNice``, so where a core is contended the kernel gives an
/// analysis thread about a tenth of what the stream's threads get (weight 110
/// against 1024), and analyses run beside the stream without slowing it
/// much. One-shot analyses of files and layers, which have nothing to yield
/// to, run at the process's own priority: at nice 10 on a machine busy with
/// other work a statistics run of a second took minutes (and `SCHED_IDLE`
/// or nice 19 starve for longer still). Thread-safe; the threads live as
/// long as the process.
public final class AnalysisExecutor: TaskExecutor, @unchecked Sendable {
    /// One executor for the process, with one thread per core (at most 4).
    public static let shared = AnalysisExecutor(threads: min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    /// The nice value the threads take before their next job (guarded by `condition`).
    private var requestedNice: Int32 = 0

    /// An executor of `threads` threads at the process's priority.
    public init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in
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

    /// Lowers the priority of every analysis thread to at least `nice`
    /// before its next job. One way only: an unprivileged thread cannot
    /// raise its priority again, so a lower value than an earlier call's is
    /// ignored.
    public func yieldToLiveStream(nice: Int32 = AnalysisExecutor.liveStreamNice) {
        condition.lock()
        requestedNice = max(requestedNice, nice)
        condition.unlock()
    }

    private func work() {
        var appliedNice: Int32 = 0
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let nice = requestedNice
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
            if nice > appliedNice {
                Self.lowerPriority(to: nice)
                appliedNice = nice
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The nice value of the analysis threads beside a live stream.
    public static let liveStreamNice: Int32 = 10

    /// `nice` for the calling thread (never below the process's own).
    private static func lowerPriority(to niceValue: Int32) {
        #if os(Linux)
        // On Linux the nice value is per thread: `who` 0 is the calling thread.
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, max(current, niceValue))
        #endif
    }
}
