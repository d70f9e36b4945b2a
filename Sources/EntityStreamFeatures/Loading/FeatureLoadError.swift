/// Why a feature file could not be loaded: the file, the 1-based line when
/// the problem is about one record, and what is wrong.
///
/// ``description`` reads `hurdat.csv:12: lat column 'lat': 'north' is not a number`,
/// or `hurdat.csv: …` without a line. ``isCancellation`` marks a load that
/// stopped because its task was cancelled (``cancelled(file:)``). A plain value.
public struct FeatureLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String
    /// The load stopped because its task was cancelled, not because of the file.
    public var isCancellation = false

    public init(file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// The load of `file` stopped because its task was cancelled.
    public static func cancelled(file: String) -> FeatureLoadError {
        var error = FeatureLoadError(file: file, "loading was cancelled")
        error.isCancellation = true
        return error
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}
