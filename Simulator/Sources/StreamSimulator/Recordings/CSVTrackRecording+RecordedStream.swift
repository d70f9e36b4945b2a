import EntityStreamCore

extension CSVTrackRecording {
    /// The track as a timed stream for `entitystream replay --csv`: one Esri
    /// point feature per row, in time order, each offset by its time from the
    /// first row's (so `--speed` plays the recorded pace), with the schema
    /// (track id from the mapping, or `trackIDField` when given) and WGS84.
    /// Entries are numbered by their position in time order (the header is
    /// line 1). Throws ``CSVError`` when `trackIDField` is not a column
    /// or the file holds no row.
    public func recordedStream(trackIDField: String?) throws(CSVError) -> RecordedStream {
        guard let first = observations.first else { throw CSVError("the CSV holds a header but no positions") }
        var schema = self.schema
        if let trackIDField {
            guard let index = schema.index(ofField: trackIDField) else {
                throw CSVError("--track-field '\(trackIDField)' is not one of its columns (\(schema.fields.map(\.name).joined(separator: ", ")))")
            }
            schema.trackIDIndex = index
        }
        var writer = JSONWriter(capacity: 256)
        var entries: [RecordingFile.Entry] = []
        entries.reserveCapacity(observations.count)
        for (index, observation) in observations.enumerated() {
            writer.removeAll()
            writer.appendFeature(observation, fields: schema.fields)
            entries.append(RecordingFile.Entry(offsetMilliseconds: observation.receivedAt &- first.receivedAt, message: writer.bytes,
                                               line: index + 2))
        }
        return RecordedStream(file: RecordingFile(layout: .csvTrack, entries: entries), schema: schema, spatialReference: 4326)
    }
}
