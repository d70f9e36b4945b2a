import EntityStreamCore
import Foundation
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// A loaded service: its schema, spatial reference and feed, ready to serve
/// any number of subscribers (each with its own position in the feed).
public struct SimulatedService: Sendable {
    /// What subscribers play.
    enum Feed: Sendable {
        case fleet(FleetConfiguration)
        /// Raw messages with optional time offsets (recordings, feature files).
        case messages([RecordingFile.Entry], timed: Bool)
        /// A recording or feature file streamed from disk by each subscriber,
        /// in bounded chunks, whatever its size; `span` is its length in
        /// recorded milliseconds (last offset + 1) for timed recordings.
        case file(path: String, timed: Bool, span: Int64)
        /// Timestamped observations (CSV).
        case observations([Observation])
        /// A relayed live stream: every subscriber gets what its source
        /// publishes from the moment it joins (see ``LiveStream``).
        case live(LiveStream)
    }

    public let name: String
    public let schema: Schema
    public let spatialReference: Int
    public let description: String
    /// Lines of the source that cannot be served (malformed recording lines),
    /// each naming its line and why; the server announces them when it
    /// starts, and each subscriber's feed skips them.
    public var skippedLines: [String] = []
    /// How many lines were skipped in all (``skippedLines`` keeps the first
    /// ``RecordingSummary/keptProblems``).
    public var skippedLineCount = 0
    let feed: Feed

    /// The schema and spatial reference filters are checked against now (a
    /// live service's change as its source learns fields).
    var current: (schema: Schema, spatialReference: Int) {
        if case .live(let stream) = feed {
            let info = stream.info
            return (info.schema, info.spatialReference)
        }
        return (schema, spatialReference)
    }

    /// A live service as of now (its schema and spatial reference are the stream's current ones).
    static func live(_ stream: LiveStream) -> SimulatedService {
        let info = stream.info
        return SimulatedService(name: stream.name, schema: info.schema, spatialReference: info.spatialReference,
                                description: info.description, feed: .live(stream))
    }

    /// Loads `specification`. `trackIDField` names the track field when the
    /// source has none (plain feature files). Throws ``SimulatorError``.
    public static func load(_ specification: ServiceSpecification, trackIDField: String?) throws(SimulatorError) -> SimulatedService {
        switch specification.source {
        case .fleet(let configuration):
            return SimulatedService(name: specification.name, schema: SnowplowFleet.schema, spatialReference: 4326,
                                    description: "Simulated snowplows near Sandy, Utah (\(configuration.vehicles) vehicles)",
                                    feed: .fleet(configuration))
        case .recording(let path):
            // Read through once in bounded chunks (to check it and learn its length),
            // never held in memory: each subscriber streams it from disk.
            let summary: RecordingSummary
            do throws(RecordingError) {
                summary = try RecordingSummary(path: path, trackIDField: trackIDField, trackFieldRequired: false, readWholeFile: true)
            } catch {
                throw .recording(path: path, error)
            }
            let title = summary.description?.serviceDescription ?? summary.header.map { "Replay of \($0.service)" }
                ?? "Replay of \(URL(fileURLWithPath: path).lastPathComponent)"
            var service = SimulatedService(name: specification.name, schema: summary.schema, spatialReference: summary.spatialReference ?? 4326,
                                           description: title,
                                           feed: .file(path: path, timed: summary.layout.isTimed,
                                                       span: max(summary.lastOffsetMilliseconds ?? 0, 0) &+ 1))
            service.skippedLines = summary.problems.map { "'\(path)' line \($0.line): \($0.reason); skipped" }
            service.skippedLineCount = summary.problemCount
            return service
        case .csv(let path, let mapping):
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableCSV(path: path) }
            let recording: CSVTrackRecording
            do throws(CSVError) { recording = try CSVTrackRecording(csv: String(decoding: data, as: UTF8.self), mapping: mapping) } catch {
                throw .csv(path: path, error)
            }
            guard !recording.observations.isEmpty else { throw .noPositions(path: path) }
            var schema = recording.schema
            if let trackIDField {
                guard let index = schema.index(ofField: trackIDField) else {
                    throw .unknownTrackColumn(trackIDField, path: path, columns: schema.fields.map(\.name))
                }
                schema.trackIDIndex = index
            }
            var service = SimulatedService(name: specification.name, schema: schema, spatialReference: 4326,
                                           description: "Replay of \(URL(fileURLWithPath: path).lastPathComponent)",
                                           feed: .observations(recording.observations))
            service.skippedLines = recording.rejectedRows.prefix(RecordingSummary.keptProblems).map { "'\(path)' line \($0.line): \($0.reason); skipped" }
            service.skippedLineCount = recording.rejectedRows.count
            return service
        }
    }
}
