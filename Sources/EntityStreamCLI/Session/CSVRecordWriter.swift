import EntityStream
import EntityStreamCore

/// Writes a one-shot statistics analysis as a CSV table on standard output
/// (`--format csv`) instead of JSON lines: a header — the group-by fields,
/// then the statistic names, taken from the first record, or from the
/// summary's `groupFields`/`statisticNames` when there is no record — then
/// one row per `result` record (``CSVText``: RFC 4180 quoting, CRLF line
/// ends, an empty cell for null and `""` for the empty string, numbers as
/// the JSON lines write them).
/// Nothing else is written: status, summary and failure lines are not part
/// of the table (a failure is reported on stderr by ``OneShotAnalysis``).
/// ``run()`` returns as ``JSONLinesWriter/run()`` does.
struct CSVRecordWriter: Sendable {
    let subscriber: Subscriber
    var output = FileDescriptorOutput.standardOutput

    func run() async -> JSONLinesWriter.Ending {
        var wroteHeader = false
        while let batch = await subscriber.next() {
            var text = ""
            for event in batch {
                guard case .analysis(let analysis) = event.payload else { continue }
                switch analysis.phase {
                case .result:
                    guard let group = analysis.members["group"]?.objectValue,
                          let statistics = analysis.members["statistics"]?.objectValue else { continue }
                    if !wroteHeader {
                        text += CSVText.record(group.keys + statistics.keys)
                        wroteHeader = true
                    }
                    text += CSVText.record(values: group.map(\.value) + statistics.map(\.value))
                case .summary:
                    guard !wroteHeader, let groupFields = analysis.members["groupFields"]?.arrayValue,
                          let statisticNames = analysis.members["statisticNames"]?.arrayValue else { continue }
                    text += CSVText.record((groupFields + statisticNames).map(CSVText.cell))
                    wroteHeader = true
                default:
                    continue
                }
            }
            guard !text.isEmpty else { continue }
            do { try output.write(text) } catch {
                return error.isClosedOutput ? .outputClosed : .outputFailed(error)
            }
        }
        return .finished
    }
}
