import Foundation

/// Memory figures of a process from `/proc/PID/status` (`VmRSS:`, `VmHWM:`,
/// in KiB), for this process or a running child. Nil when the file or the
/// field is absent (the process has exited, or is a zombie whose memory is
/// gone).
enum ProcessStatus {
    static func kilobytes(_ field: String, pid: pid_t? = nil) -> Int? {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            return Int(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }
}

/// The peak RSS of a child started with `posix_spawn`, which `wait4`'s
/// `ru_maxrss` alone cannot give: glibc's `posix_spawn` shares this
/// process's memory until the `exec`, and Linux then records *this*
/// process's peak as the child's, so a lean child of a benchmark that once
/// held 135 MB reports 135 MB.
///
/// The child's own high-water mark after its `exec` (`VmHWM` of
/// `/proc/PID/status`) is sampled on a thread every 10 ms until
/// ``stop()``, which must come after the child exited and before it is
/// reaped. ``peak(maxrss:)`` is then `ru_maxrss` when that exceeds this
/// process's own peak at the spawn (then it is the child's), and otherwise
/// the largest sample.
final class PeakResidentSampler: @unchecked Sendable {
    private let pid: pid_t
    private let parentPeak: Int
    private let lock = NSLock()
    private var sampled = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    /// Call right after the spawn; `parentPeak` is this process's `VmHWM` just before it.
    init(pid: pid_t, parentPeak: Int) {
        self.pid = pid
        self.parentPeak = parentPeak
        Thread {
            while self.lock.withLock({ self.running }) {
                if let value = ProcessStatus.kilobytes("VmHWM:", pid: pid) {
                    self.lock.withLock { self.sampled = max(self.sampled, value) }
                }
                usleep(10_000)
            }
            self.done.signal()
        }.start()
    }

    /// Stops sampling (the child must not be reaped yet).
    func stop() {
        lock.withLock { running = false }
        done.wait()
    }

    /// The child's peak RSS, KiB, given `wait4`'s `ru_maxrss` for it; after ``stop()``.
    func peak(maxrss: Int) -> Int {
        maxrss > parentPeak ? maxrss : lock.withLock { sampled }
    }
}

/// A running child's RSS (`VmRSS`) sampled every `interval` on a thread,
/// with the seconds since ``start(pid:)``, until ``stop()`` (called after
/// the child exited and before it is reaped): what a soak run watches.
final class ResidentSeries: @unchecked Sendable {
    private let interval: Double
    private let lock = NSLock()
    private var collected: [(seconds: Double, kib: Int)] = []
    private var running = false
    private let done = DispatchSemaphore(value: 0)

    init(interval: Double = 0.5) {
        self.interval = interval
    }

    func start(pid: pid_t) {
        lock.withLock { running = true }
        let started = ContinuousClock.now
        Thread {
            while self.lock.withLock({ self.running }) {
                if let value = ProcessStatus.kilobytes("VmRSS:", pid: pid) {
                    let seconds = (ContinuousClock.now - started).seconds
                    self.lock.withLock { self.collected.append((seconds, value)) }
                }
                usleep(useconds_t(self.interval * 1e6))
            }
            self.done.signal()
        }.start()
    }

    func stop() {
        guard lock.withLock({ () -> Bool in
            defer { running = false }
            return running
        }) else { return }
        done.wait()
    }

    var samples: [(seconds: Double, kib: Int)] { lock.withLock { collected } }
}
