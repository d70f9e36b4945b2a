import EntityStreamModel
import EntityStreamCore
/// A recording held in memory, ready to play: its messages, and the schema
/// and spatial reference they decode with. Files given by path are streamed
/// instead (``RecordingSummary``, ``RecordingFileReader``); this is for bytes
/// already read (`entitystream replay -` from standard input) and streams
/// built some other way (a CSV track).
///
/// A recording made by `record` carries the service description: its fields
/// and track-id field (or `trackIDField` instead). Plain feature files carry
/// none: the fields are learned from the first features that decode, the
/// spatial reference from the first geometry that names one, and the track
/// field must be named. ``init(bytes:trackIDField:trackFieldRequired:)``
/// throws ``RecordingError`` saying what is missing or wrong; malformed
/// recording lines do not refuse it (their entries carry their problem and
/// are left out when learning the fields). A value type.
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
        guard !file.entries.isEmpty else { throw .noMessages }
        self.file = file
        let learned = try Self.learn(header: file.header, sample: Array(file.entries.lazy.filter { $0.problem == nil }.prefix(Self.learningSample).map(\.message)),
                                     trackIDField: trackIDField, trackFieldRequired: trackFieldRequired)
        description = learned.description
        schema = learned.schema
        spatialReference = learned.spatialReference
    }

    /// What a recording's messages decode with: from its header's service
    /// description, or learned from `sample` (its first messages) for plain
    /// feature files. Throws ``RecordingError`` as ``init(bytes:trackIDField:trackFieldRequired:)``.
    public static func learn(header: RecordingHeader?, sample: [[UInt8]], trackIDField: String?,
                             trackFieldRequired: Bool) throws(RecordingError) -> (description: ServiceDescription?, schema: Schema, spatialReference: Int?) {
        if let header, let object = header.description.objectValue {
            let description: ServiceDescription
            do throws(ServiceDescriptionError) { description = try ServiceDescription(object: object) } catch {
                throw .unusableDescription(error)
            }
            let schema: Schema
            do {
                schema = try description.schema(trackIDFieldOverride: trackIDField)
            } catch {
                guard case .noTrackIDField = error, !trackFieldRequired else { throw .descriptionSchema(error) }
                schema = Schema(fields: description.fields, startTimeField: description.startTimeField, endTimeField: description.endTimeField)
            }
            return (description, schema, description.spatialReference)
        }
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var decoded: [StreamMessage] = []
        var features = 0
        var wkid: Int?
        for message in sample {
            decoded.removeAll(keepingCapacity: true)
            guard (try? decoder.decode(message, receivedAt: 0, into: &decoded)) != nil else { continue }
            for message in decoded {
                guard let observation = message.carriedObservation else { continue }
                features += 1
                if wkid == nil { wkid = observation.geometry?.wkid }
            }
        }
        guard features > 0 else {
            throw .noFeatures(sampled: sample.count)
        }
        var schema = decoder.schema
        let seen = schema.fields.map(\.name)
        if let trackIDField {
            guard let index = schema.index(ofField: trackIDField) else {
                throw .unknownTrackField(trackIDField, fields: seen)
            }
            schema.trackIDIndex = index
        } else if trackFieldRequired {
            throw .noTrackField(fields: seen)
        }
        return (nil, schema, wkid)
    }
}

/// What a recording file holds, found by reading it through once in bounded
/// chunks (its messages are not kept): layout, header, the schema its
/// messages decode with, how many messages, the last recorded offset and
/// the malformed recording lines (which do not refuse the file: they are
/// reported where they stand as it plays). The streaming counterpart of
/// ``RecordedStream``, for files of any size.
public struct RecordingSummary: Sendable {
    /// A malformed line of a recording: its 1-based line and why it cannot be played.
    public struct Problem: Sendable, Hashable {
        public let line: Int
        public let reason: String

        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// How many ``problems`` are kept (the rest are only counted in ``problemCount``).
    public static let keptProblems = 20

    public let path: String
    public let layout: RecordingFile.Layout
    public let header: RecordingHeader?
    public let description: ServiceDescription?
    public let schema: Schema
    public let spatialReference: Int?
    /// Messages in the file (nil when only a sample was read).
    public let messageCount: Int?
    /// The last message's offset in a recording (nil when unknown or untimed).
    public let lastOffsetMilliseconds: Int64?
    /// The first ``keptProblems`` malformed recording lines of what was read.
    public let problems: [Problem]
    /// How many malformed recording lines were read in all.
    public let problemCount: Int

    /// Reads `path`: its first ``RecordedStream/learningSample`` messages to
    /// learn the schema, and, with `readWholeFile`, the rest to count
    /// messages and find the last offset (still in bounded memory). Throws
    /// ``RecordingError`` as ``RecordedStream`` does, and for an unreadable file.
    public init(path: String, trackIDField: String?, trackFieldRequired: Bool, readWholeFile: Bool) throws(RecordingError) {
        let reader = try RecordingFileReader(path: path)
        var batch = RecordingChunkParser.Batch()
        try reader.read(into: &batch, minimum: RecordedStream.learningSample)
        guard !batch.isEmpty, let layout = reader.layout else { throw .noMessages }
        let sample = (0..<min(batch.count, RecordedStream.learningSample)).filter { batch.problems[$0] == nil }
            .map { Array(batch.bytes[batch.range($0)]) }
        let learned = try RecordedStream.learn(header: reader.header, sample: sample, trackIDField: trackIDField,
                                               trackFieldRequired: trackFieldRequired)
        var count = 0
        var lastOffset: Int64?
        var problems: [Problem] = []
        var problemCount = 0
        func take(_ batch: RecordingChunkParser.Batch) {
            count += batch.count
            if let offset = batch.offsets.last(where: { $0 != nil }) ?? nil { lastOffset = offset }
            for (index, problem) in batch.problems.enumerated() {
                guard let problem else { continue }
                problemCount += 1
                if problems.count < Self.keptProblems { problems.append(Problem(line: batch.lines[index], reason: problem)) }
            }
        }
        take(batch)
        if readWholeFile {
            var more = true
            while more {
                batch.removeAll()
                more = try reader.read(into: &batch, minimum: 4096)
                take(batch)
            }
        }
        self.path = path
        self.layout = layout
        header = reader.header
        description = learned.description
        schema = learned.schema
        spatialReference = learned.spatialReference
        messageCount = readWholeFile ? count : nil
        lastOffsetMilliseconds = readWholeFile ? lastOffset : nil
        self.problems = problems
        self.problemCount = problemCount
    }

    /// The summary of a stream already in memory (standard input, a CSV track), named `path`.
    public init(path: String, stream: RecordedStream) {
        self.path = path
        layout = stream.file.layout
        header = stream.file.header
        description = stream.description
        schema = stream.schema
        spatialReference = stream.spatialReference
        messageCount = stream.file.entries.count
        lastOffsetMilliseconds = stream.file.entries.last { $0.offsetMilliseconds != nil }?.offsetMilliseconds
        let bad = stream.file.entries.filter { $0.problem != nil }
        problems = bad.prefix(Self.keptProblems).map { Problem(line: $0.line, reason: $0.problem ?? "") }
        problemCount = bad.count
    }
}
