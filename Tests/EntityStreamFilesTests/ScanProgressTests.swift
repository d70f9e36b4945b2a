import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFiles

@Suite("Progress of a file scan: rows, rows per second, percent, rate-limited", .bounded)
struct ScanProgressTests {
    /// Reports come at most once per interval on the injected clock, carry
    /// the rows, the average rate since the start and the percent read
    /// (rounded down, so 100 only at the end), and the end is always reported, once.
    @Test func rateLimitedReportsAndAnExactEnd() {
        let clock = ManualClock()
        var progress = ScanProgress(totalBytes: 1_000_000, started: clock.now(), interval: 250)
        // Too soon after the start: nothing to draw.
        clock.advance(by: 100)
        #expect(progress.update(rows: 10_000, bytes: 100_000, now: clock.now()) == nil)
        clock.advance(by: 150)
        let first = progress.update(rows: 20_000, bytes: 199_999, now: clock.now())
        // 20,000 rows in 250 ms: 80,000 rows/s; 199,999 of 1,000,000 bytes is 19.9 %, not 20.
        #expect(first == ScanProgress.Report(rows: 20_000, rowsPerSecond: 80_000, percent: 19.9))
        clock.advance(by: 249)
        #expect(progress.update(rows: 30_000, bytes: 300_000, now: clock.now()) == nil)
        clock.advance(by: 1)
        #expect(progress.update(rows: 40_000, bytes: 999_999, now: clock.now())?.percent == 99.9)
        // Fewer than 250 ms later, but the file's end: reported, at exactly 100.
        clock.advance(by: 10)
        let end = progress.update(rows: 41_000, bytes: 1_000_000, now: clock.now())
        #expect(end == ScanProgress.Report(rows: 41_000, rowsPerSecond: 80_392, percent: 100))
        #expect(end?.members["percent"] == .double(100))
        #expect(end?.members["rowsPerSecond"] == .int(80_392))
        // Once only.
        clock.advance(by: 1000)
        #expect(progress.update(rows: 41_000, bytes: 1_000_000, now: clock.now()) == nil)
    }

    /// At most one report per interval however many chunks arrive: 1,000
    /// chunks over 2 s at a 250 ms interval give 7 reports, then the end.
    @Test func manyChunksFewRedraws() {
        let clock = ManualClock()
        var progress = ScanProgress(totalBytes: 1000, started: clock.now(), interval: 250)
        var reports: [ScanProgress.Report] = []
        for chunk in 1...1000 {
            clock.advance(by: 2)
            if let report = progress.update(rows: chunk * 10, bytes: chunk, now: clock.now()) { reports.append(report) }
        }
        #expect(reports.map(\.percent) == [12.5, 25, 37.5, 50, 62.5, 75, 87.5, 100])
        #expect(reports.first?.rowsPerSecond == 5000)
        #expect(reports.last?.rows == 10_000)
    }

    /// An empty file is at its end at once.
    @Test func emptyFile() {
        var progress = ScanProgress(totalBytes: 0, started: 0)
        #expect(progress.update(rows: 0, bytes: 0, now: 0) == ScanProgress.Report(rows: 0, rowsPerSecond: 0, percent: 100))
    }
}
