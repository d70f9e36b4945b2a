import EntityStreamModel
/// The first line of a recording: which service, when, and its description.
public struct RecordingHeader: Sendable, Hashable {
    public static let formatName = "entitystream"
    public static let version = 1

    /// The service URL that was recorded.
    public var service: String
    /// When recording started, epoch ms.
    public var startedAt: Int64
    /// The service description JSON as the service answered it.
    public var description: JSONValue

    public init(service: String, startedAt: Int64, description: JSONValue) {
        self.service = service
        self.startedAt = startedAt
        self.description = description
    }

    /// Parses a header line; nil when the line is not a recording header.
    package init?(line: [UInt8], lineNumber: Int) throws(RecordingError) {
        guard line.starts(with: Array("{\"recording\":".utf8)) else { return nil }
        let value: JSONValue
        do throws(JSONError) { value = try JSONParser.parse(line) } catch { throw .headerJSON(line: lineNumber, error) }
        guard value["recording"]?.stringValue == Self.formatName else { return nil }
        guard let version = value["version"]?.intValue, version == Self.version else {
            throw .unsupportedVersion(line: lineNumber, found: value["version"], supported: Self.version)
        }
        guard let description = value["description"], description.objectValue != nil else {
            throw .headerWithoutDescription(line: lineNumber)
        }
        guard let service = value["service"]?.stringValue else {
            throw .headerWithoutService(line: lineNumber)
        }
        guard let startedAt = value["startedAt"]?.intValue else {
            throw .headerWithoutStartedAt(line: lineNumber)
        }
        self.service = service
        self.startedAt = startedAt
        self.description = description
    }

    /// The header as one JSON line (without newline).
    public func line() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.appendRaw("{\"recording\":\"entitystream\",\"version\":")
        writer.appendInt(Int64(Self.version))
        writer.appendRaw(",\"service\":")
        writer.appendString(service)
        writer.appendRaw(",\"startedAt\":")
        writer.appendInt(startedAt)
        writer.appendRaw(",\"description\":")
        writer.append(description)
        writer.appendRaw("}")
        return writer.bytes
    }
}
