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
    let feed: Feed
    /// The recorded service description, when the source had one (its fields are served as they were).
    let recordedDescription: JSONObject?

    /// Loads `specification`. `trackIDField` names the track field when the
    /// source has none (plain feature files). Throws ``SimulatorError``.
    public static func load(_ specification: ServiceSpecification, trackIDField: String?) throws(SimulatorError) -> SimulatedService {
        switch specification.source {
        case .fleet(let configuration):
            return SimulatedService(name: specification.name, schema: SnowplowFleet.schema, spatialReference: 4326,
                                    description: "Simulated snowplows near Sandy, Utah (\(configuration.vehicles) vehicles)",
                                    feed: .fleet(configuration), recordedDescription: nil)
        case .recording(let path):
            guard let data = FileManager.default.contents(atPath: path) else { throw SimulatorError("cannot read '\(path)'") }
            let file: RecordingFile
            do { file = try RecordingFile(bytes: Array(data)) } catch { throw SimulatorError("'\(path)' \(error)") }
            guard !file.entries.isEmpty else { throw SimulatorError("'\(path)' holds no messages") }
            if let header = file.header, let object = header.description.objectValue {
                var writer = JSONWriter(capacity: 4096)
                writer.append(header.description)
                let description: ServiceDescription
                do { description = try ServiceDescription(json: writer.bytes) } catch { throw SimulatorError("'\(path)': \(error)") }
                var schema = Schema(fields: description.fields)
                if let track = trackIDField ?? description.trackIDField { schema.trackIDIndex = schema.index(ofField: track) }
                return SimulatedService(name: specification.name, schema: schema, spatialReference: description.spatialReference ?? 4326,
                                        description: description.serviceDescription ?? "Replay of \(header.service)",
                                        feed: .messages(file.entries, timed: true), recordedDescription: object)
            }
            var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
            var decoded: [StreamMessage] = []
            var wkid: Int?
            for entry in file.entries.prefix(1000) {
                decoded.removeAll()
                if (try? decoder.decode(entry.message, receivedAt: 0, into: &decoded)) != nil, wkid == nil {
                    wkid = decoded.lazy.compactMap { $0.carriedObservation?.geometry?.wkid }.first
                }
            }
            var schema = decoder.schema
            if let trackIDField {
                guard let index = schema.index(ofField: trackIDField) else {
                    throw SimulatorError("--track-field '\(trackIDField)' is not a field of '\(path)' (fields: \(schema.fields.map(\.name).joined(separator: ", ")))")
                }
                schema.trackIDIndex = index
            }
            return SimulatedService(name: specification.name, schema: schema, spatialReference: wkid ?? 4326,
                                    description: "Replay of \(URL(fileURLWithPath: path).lastPathComponent)",
                                    feed: .messages(file.entries, timed: false), recordedDescription: nil)
        case .csv(let path, let mapping):
            guard let data = FileManager.default.contents(atPath: path) else { throw SimulatorError("cannot read '\(path)'") }
            let recording: CSVTrackRecording
            do { recording = try CSVTrackRecording(csv: String(decoding: data, as: UTF8.self), mapping: mapping) } catch {
                throw SimulatorError("'\(path)': \(error)")
            }
            guard !recording.observations.isEmpty else { throw SimulatorError("'\(path)' holds no positions") }
            return SimulatedService(name: specification.name, schema: recording.schema, spatialReference: 4326,
                                    description: "Replay of \(URL(fileURLWithPath: path).lastPathComponent)",
                                    feed: .observations(recording.observations), recordedDescription: nil)
        }
    }
}
