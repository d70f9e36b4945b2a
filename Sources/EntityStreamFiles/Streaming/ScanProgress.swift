import Synchronization
import EntityStreamCore
import EntityStreamModel

/// How far the scan under way has got: the bytes of the file, and the rows
/// in them, handed to the caller so far (each chunk counted just before its
/// result goes to the caller's `consume`). The end of the last chunk is the
/// end of the file, so at the end ``bytesDelivered`` is the file's size.
/// Reset when a scan starts; with scans at once on one file, the latest
/// delivery of any of them. Thread-safe.
public final class ScanPosition: Sendable {
    private let bytes = Atomic<Int>(0)
    private let rows = Atomic<Int>(0)
    private let passes = Atomic<Int>(0)

    public init() {}

    /// How many reads of the whole file have started (each scan, and a
    /// CSV's layout pass).
    public var passesStarted: Int { passes.load(ordering: .relaxed) }

    /// The file offset just past the last chunk delivered.
    public var bytesDelivered: Int { bytes.load(ordering: .relaxed) }
    /// The rows of the chunks delivered (every row read, filtered or not).
    public var rowsDelivered: Int { rows.load(ordering: .relaxed) }

    func reset() {
        passes.wrappingAdd(1, ordering: .relaxed)
        bytes.store(0, ordering: .relaxed)
        rows.store(0, ordering: .relaxed)
    }

    /// A chunk ending at file offset `end`, holding `rows` rows, is delivered.
    func delivered(through end: Int, rows count: Int) {
        bytes.store(end, ordering: .relaxed)
        rows.wrappingAdd(count, ordering: .relaxed)
    }
}

/// What a file analysis shows while it reads: rows read, rows per second
/// and the percent of the file, at most once per ``interval`` (the redraw
/// rate of a terminal's progress line), and always once at the end of the
/// file (100 %). Pure: the caller passes the clock's time.
public struct ScanProgress: Sendable, Equatable {
    /// One progress report: a file analysis's `progress` line.
    public struct Report: AnalysisProgress {
        public var rows: Int
        /// Rows read per second since the scan started.
        public var rowsPerSecond: Int
        /// Bytes read of the file's, in percent (one decimal; 100 at the end).
        public var percent: Double

        public init(rows: Int, rowsPerSecond: Int, percent: Double) {
            self.rows = rows
            self.rowsPerSecond = rowsPerSecond
            self.percent = percent
        }

        /// The members of a `progress` line: `rows`, `rowsPerSecond`, `percent`.
        public var members: JSONObject {
            JSONObject([("rows", .int(Int64(rows))), ("rowsPerSecond", .int(Int64(rowsPerSecond))), ("percent", .double(percent))])
        }
    }

    /// The file's size in bytes.
    public let totalBytes: Int
    /// When the scan started (epoch milliseconds).
    public let started: Int64
    /// The least time between two reports, in milliseconds.
    public let interval: Int64
    private var lastReport: Int64?
    private var reportedEnd = false

    /// The default interval: four redraws a second.
    public static let defaultInterval: Int64 = 250

    public init(totalBytes: Int, started: Int64, interval: Int64 = ScanProgress.defaultInterval) {
        self.totalBytes = max(0, totalBytes)
        self.started = started
        self.interval = max(1, interval)
    }

    /// The report due at `now`, after `rows` rows and `bytes` bytes were
    /// read: nil when the last one was less than ``interval`` ago (or the
    /// scan started less than that ago), except at the end of the file,
    /// which is reported once.
    public mutating func update(rows: Int, bytes: Int, now: Int64) -> Report? {
        let atEnd = bytes >= totalBytes
        if atEnd {
            guard !reportedEnd else { return nil }
            reportedEnd = true
        } else {
            guard now - (lastReport ?? started) >= interval else { return nil }
        }
        lastReport = now
        let elapsed = now - started
        let rate = elapsed > 0 ? Int((Double(rows) * 1000 / Double(elapsed)).rounded()) : 0
        let percent = atEnd || totalBytes == 0 ? 100 : (Double(bytes) * 1000 / Double(totalBytes)).rounded(.down) / 10
        return Report(rows: rows, rowsPerSecond: rate, percent: percent)
    }
}
