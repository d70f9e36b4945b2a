import Foundation

/// One run of a program as a benchmark measures it: started with
/// `posix_spawn`, stdout read through a pipe by this process (as `| jq`
/// would, counting bytes and lines) or sent to /dev/null, and reaped with
/// `wait4` so its own CPU time is known (not its parent's or another
/// child's); its peak RSS is its own too (``PeakResidentSampler``: not this
/// process's, which `posix_spawn` would otherwise pass on).
struct MeasuredProcess {
    struct Run {
        var seconds: Double
        var userSeconds: Double
        var systemSeconds: Double
        /// Peak resident set size, KiB.
        var maximumResidentKiB: Int
        var status: Int32
        var outputBytes: Int
        var outputLines: Int
        var standardError: String

        var cpuSeconds: Double { userSeconds + systemSeconds }
    }

    enum Output { case pipe, devNull }

    /// - Parameter series: when given, samples the child's RSS over its life.
    static func run(_ executable: String, _ arguments: [String], output: Output = .pipe, series: ResidentSeries? = nil) throws -> Run {
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw BenchmarkError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if output == .pipe {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for descriptor in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let parentPeak = ProcessStatus.kilobytes("VmHWM:") ?? Int.max
        let started = ContinuousClock.now
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw BenchmarkError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        // Read stdout here (as a reader in a pipeline would), stderr and the peak RSS on threads.
        let errors = ErrorCollector(descriptor: errPipe[0])
        let peak = PeakResidentSampler(pid: pid, parentPeak: parentPeak)
        series?.start(pid: pid)
        var bytes = 0
        var lines = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 17)   // what cat reads at a time
        while true {
            let count = buffer.withUnsafeMutableBytes { read(outPipe[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += count
            lines += countNewlines(buffer, count)
        }
        close(outPipe[0])
        var status: Int32 = 0
        var usage = rusage()
        // Wait for the exit without reaping: the sampler watches the whole life, and never a reused pid.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        let elapsed = (ContinuousClock.now - started).seconds
        peak.stop()
        series?.stop()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Run(seconds: elapsed,
                   userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                   systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
                   maximumResidentKiB: peak.peak(maxrss: usage.ru_maxrss), status: exitStatus, outputBytes: bytes, outputLines: lines,
                   standardError: errors.finish())
    }

    /// Newlines in the first `count` bytes, found with `memchr` as `wc -l`
    /// does: the reader of the benchmark must cost what a fast reader costs,
    /// since it shares the two cores with the program measured.
    private static func countNewlines(_ buffer: [UInt8], _ count: Int) -> Int {
        buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return 0 }
            var found = 0
            var position = base
            let end = base + count
            while position < end, let hit = memchr(position, Int32(UInt8(ascii: "\n")), end - position) {
                found += 1
                position = UnsafeRawPointer(hit) + 1
            }
            return found
        }
    }

    /// Collects a child's stderr on its own thread.
    private final class ErrorCollector: @unchecked Sendable {
        private var text = Data()
        private let done = DispatchSemaphore(value: 0)

        init(descriptor: Int32) {
            Thread {
                let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
                self.text = handle.readDataToEndOfFile()
                self.done.signal()
            }.start()
        }

        func finish() -> String {
            done.wait()
            return String(decoding: text, as: UTF8.self)
        }
    }
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
