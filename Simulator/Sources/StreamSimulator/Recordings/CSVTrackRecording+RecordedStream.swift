import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

extension CSVTrackRecording {
    /// The track as a timed stream for `entitystream replay --columns`: one Esri
    /// point feature per row, in time order, each offset by its time from the
    /// first row's (so `--speed` plays the recorded pace), with the schema
    /// (track id from the mapping, or `trackIDField` when given) and WGS84.
    /// Entries are numbered by their position in time order (the header is
    /// line 1); a rejected row is an entry with a ``RecordingFile/Entry/problem``
    /// naming its CSV line, after the observation of the valid row before
    /// it in the file, at that observation's time offset, so the replay
    /// reports it in its place and goes on. Throws ``CSVError`` when
    /// `trackIDField` is not a column or the file holds no row at all.
    public func recordedStream(trackIDField: String?) throws(CSVError) -> RecordedStream {
        guard !observations.isEmpty || !rejectedRows.isEmpty else { throw CSVError(.noPositions) }
        let firstTime = observations.first?.receivedAt ?? 0
        var schema = self.schema
        if let trackIDField {
            guard let index = schema.index(ofField: trackIDField) else {
                throw CSVError(.unknownTrackField(trackIDField, columns: schema.fields.map(\.name)))
            }
            schema.trackIDIndex = index
        }
        var writer = JSONWriter(capacity: 256)
        var entries: [RecordingFile.Entry] = []
        entries.reserveCapacity(observations.count + rejectedRows.count)
        // Rejected rows by the time-order position of the valid row before them (-1: none).
        var byPosition: [Int: [CSVTrackRecording.RejectedRow]] = [:]
        for row in rejectedRows { byPosition[row.after ?? -1, default: []].append(row) }
        func appendRejected(after position: Int, offset: Int64) {
            for row in byPosition[position] ?? [] {
                entries.append(RecordingFile.Entry(offsetMilliseconds: offset, message: [], line: row.line, problem: "row skipped: \(row.reason)"))
            }
        }
        appendRejected(after: -1, offset: 0)
        for (index, observation) in observations.enumerated() {
            writer.removeAll()
            writer.appendFeature(observation, fields: schema.fields)
            let offset = observation.receivedAt &- firstTime
            entries.append(RecordingFile.Entry(offsetMilliseconds: offset, message: writer.bytes, line: index + 2))
            appendRejected(after: index, offset: offset)
        }
        return RecordedStream(file: RecordingFile(layout: .csvTrack, entries: entries), schema: schema, spatialReference: 4326)
    }
}
