import EntityStreamCore
import Foundation

/// A loaded service: its schema, spatial reference and feed, ready to serve
/// any number of subscribers (each with its own position in the feed).
public struct SimulatedService: Sendable {
    /// What subscribers play.
    enum Feed: Sendable {
        case fleet(FleetConfiguration)
        /// Raw messages with optional time offsets (recordings, feature files).
        case messages([RecordingFile.Entry], timed: Bool)
        /// Timestamped observations (CSV).
        case observations([Observation])
    }

    public let name: String
    public let schema: Schema
    public let spatialReference: Int
    public let description: String
    /// Lines of the source that cannot be served (malformed recording lines),
    /// each naming its line and why; the server announces them when it starts.
    public var skippedLines: [String] = []
    let feed: Feed

    /// Loads `specification`. `trackIDField` names the track field when the
    /// source has none (plain feature files). Throws ``SimulatorError``.
    public static func load(_ specification: ServiceSpecification, trackIDField: String?) throws(SimulatorError) -> SimulatedService {
        switch specification.source {
        case .fleet(let configuration):
            return SimulatedService(name: specification.name, schema: SnowplowFleet.schema, spatialReference: 4326,
                                    description: "Simulated snowplows near Sandy, Utah (\(configuration.vehicles) vehicles)",
                                    feed: .fleet(configuration))
        case .recording(let path):
            guard let data = FileManager.default.contents(atPath: path) else { throw SimulatorError("cannot read '\(path)'") }
            let stream: RecordedStream
            do { stream = try RecordedStream(bytes: Array(data), trackIDField: trackIDField, trackFieldRequired: false) } catch {
                throw SimulatorError("'\(path)' \(error)")
            }
            let title = stream.description?.serviceDescription ?? stream.file.header.map { "Replay of \($0.service)" }
                ?? "Replay of \(URL(fileURLWithPath: path).lastPathComponent)"
            var service = SimulatedService(name: specification.name, schema: stream.schema, spatialReference: stream.spatialReference ?? 4326,
                                           description: title,
                                           feed: .messages(stream.file.entries.filter { $0.problem == nil }, timed: stream.file.layout.isTimed))
            service.skippedLines = stream.file.entries.compactMap { entry in entry.problem.map { "'\(path)' line \(entry.line): \($0); skipped" } }
            return service
        case .csv(let path, let mapping):
            guard let data = FileManager.default.contents(atPath: path) else { throw SimulatorError("cannot read '\(path)'") }
            let recording: CSVTrackRecording
            do { recording = try CSVTrackRecording(csv: String(decoding: data, as: UTF8.self), mapping: mapping) } catch {
                throw SimulatorError("'\(path)': \(error)")
            }
            guard !recording.observations.isEmpty else { throw SimulatorError("'\(path)' holds no positions") }
            var schema = recording.schema
            if let trackIDField {
                guard let index = schema.index(ofField: trackIDField) else {
                    throw SimulatorError("--track-field '\(trackIDField)' is not a column of '\(path)' (columns: \(schema.fields.map(\.name).joined(separator: ", ")))")
                }
                schema.trackIDIndex = index
            }
            return SimulatedService(name: specification.name, schema: schema, spatialReference: 4326,
                                    description: "Replay of \(URL(fileURLWithPath: path).lastPathComponent)",
                                    feed: .observations(recording.observations))
        }
    }
}
