/// A recording file ready to play: its messages, and the schema and spatial
/// reference they decode with. The one loader behind `entitystream replay`
/// and `stream-simulator --recording`.
///
/// A recording made by `record` carries the service description: its fields
/// and track-id field (or `trackIDField` instead). Plain feature files carry
/// none: the fields are learned from the first features that decode, the
/// spatial reference from the first geometry that names one, and the track
/// field must be named. ``init(bytes:trackIDField:trackFieldRequired:)``
/// throws ``RecordingError`` saying what is missing or wrong. A value type.
public struct RecordedStream: Sendable {
    public let file: RecordingFile
    /// The recorded service description (recordings made by `record` only).
    public let description: ServiceDescription?
    public let schema: Schema
    /// The service's spatial reference, or the first one a feature names.
    public let spatialReference: Int?

    /// How many messages of a plain feature file are read to learn its fields.
    public static let learningSample = 1000

    /// A stream read some other way (a CSV track): its entries, schema and spatial reference as given.
    public init(file: RecordingFile, schema: Schema, spatialReference: Int?, description: ServiceDescription? = nil) {
        self.file = file
        self.schema = schema
        self.spatialReference = spatialReference
        self.description = description
    }

    /// `trackFieldRequired`: fail when no track-id field is known (a replay
    /// needs one to form entities; a simulator can serve without).
    public init(bytes: [UInt8], trackIDField: String?, trackFieldRequired: Bool) throws(RecordingError) {
        let file = try RecordingFile(bytes: bytes)
        guard !file.entries.isEmpty else { throw RecordingError(line: nil, "holds no messages") }
        self.file = file
        if let header = file.header, let object = header.description.objectValue {
            let description: ServiceDescription
            do { description = try ServiceDescription(object: object) } catch {
                throw RecordingError(line: 1, "the recorded service description is unusable: \(error)")
            }
            do {
                schema = try description.schema(trackIDFieldOverride: trackIDField)
            } catch {
                guard case .noTrackIDField = error, !trackFieldRequired else { throw RecordingError(line: 1, error.description) }
                schema = Schema(fields: description.fields, startTimeField: description.startTimeField, endTimeField: description.endTimeField)
            }
            self.description = description
            spatialReference = description.spatialReference
            return
        }
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var decoded: [StreamMessage] = []
        var features = 0
        var wkid: Int?
        for entry in file.entries.prefix(Self.learningSample) where entry.problem == nil {
            decoded.removeAll(keepingCapacity: true)
            guard (try? decoder.decode(entry.message, receivedAt: 0, into: &decoded)) != nil else { continue }
            for message in decoded {
                guard let observation = message.carriedObservation else { continue }
                features += 1
                if wkid == nil { wkid = observation.geometry?.wkid }
            }
        }
        guard features > 0 else {
            throw RecordingError(line: nil, "holds no Esri feature JSON in its first \(min(file.entries.count, Self.learningSample)) messages (a CSV needs --csv id=…,time=…,x=…,y=…)")
        }
        var schema = decoder.schema
        let seen = schema.fields.map(\.name).joined(separator: ", ")
        if let trackIDField {
            guard let index = schema.index(ofField: trackIDField) else {
                throw RecordingError(line: nil, "--track-field '\(trackIDField)' is not one of its fields (\(seen))")
            }
            schema.trackIDIndex = index
        } else if trackFieldRequired {
            throw RecordingError(line: nil, "has plain features without a service description; name the track-id field with --track-field (fields: \(seen))")
        }
        self.schema = schema
        description = nil
        spatialReference = wkid
    }
}
