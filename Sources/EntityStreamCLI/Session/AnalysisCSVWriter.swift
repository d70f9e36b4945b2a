import EntityStream
import EntityStreamCore

/// Writes an analysis's result features as a CSV table on stdout
/// (``AnalysisCSVTable``) and every other line — status, the job's status
/// lines, the summary, a failure — as a JSON line on stderr, so stdout is
/// nothing but the table. Same endings as ``JSONLinesWriter``.
struct AnalysisCSVWriter: Sendable {
    let subscriber: Subscriber
    let schema: SchemaBox

    func run() async -> JSONLinesWriter.Ending {
        var table = AnalysisCSVTable()
        var formatter = JSONLinesFormatter(format: .esri, schema: schema.schema)
        var rows = JSONWriter(capacity: 256 * 1024)
        var lines = JSONWriter(capacity: 4 * 1024)
        let output = FileDescriptorOutput.standardOutput
        while let batch = await subscriber.next() {
            rows.removeAll()
            lines.removeAll()
            for event in batch {
                if case .analysis(let analysis) = event.payload {
                    if analysis.phase == .accepted { continue }
                    if analysis.phase == .result, let feature = analysis.feature {
                        table.append(feature, to: &rows)
                        continue
                    }
                }
                formatter.append(event, to: &lines)
            }
            do { try output.write(rows) } catch {
                return error.isClosedOutput ? .outputClosed : .outputFailed(error)
            }
            try? FileDescriptorOutput.standardError.write(lines)
        }
        if table.droppedAttributes > 0 {
            Stderr.line("entitystream: \(table.droppedAttributes) attribute values had no column in the CSV table")
        }
        return .finished
    }
}
