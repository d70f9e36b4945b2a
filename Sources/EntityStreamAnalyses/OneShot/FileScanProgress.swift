import EntityStream
import EntityStreamFiles
import EntityStreamModel

/// Publishes a streamed file scan's progress as `progress` lines (`rows`,
/// `rowsPerSecond`, `percent` of the file's bytes), rate-limited by
/// ``ScanProgress`` on the analysis clock: `statistics`, `query` and
/// `hotspots` over files call ``chunkDelivered(in:)`` as each chunk's
/// result arrives. A one-shot command shows them on a terminal's stderr
/// (``OneShotAnalysis``), never on stdout.
struct FileScanProgress {
    private var progress: ScanProgress
    private let position: ScanPosition
    private let context: AnalysisContext

    /// Starts measuring `scan`'s next pass now.
    init(_ scan: any FeatureFileScan, in context: AnalysisContext) {
        progress = ScanProgress(totalBytes: scan.fileSize, started: context.environment.clock.now())
        position = scan.position
        self.context = context
    }

    /// Publishes a report when one is due.
    mutating func chunkDelivered() async {
        let now = context.environment.clock.now()
        if let report = progress.update(rows: position.rowsDelivered, bytes: position.bytesDelivered, now: now) {
            await context.progress(report)
        }
    }
}
