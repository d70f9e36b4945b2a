/// Why a feature file could not be loaded: the file, the 1-based line when
/// the problem is about one record, and what is wrong.
///
/// ``description`` reads `hurdat.csv:12: lat column 'lat': 'north' is not a number`,
/// or `hurdat.csv: …` without a line. A plain value.
public struct FeatureLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}
