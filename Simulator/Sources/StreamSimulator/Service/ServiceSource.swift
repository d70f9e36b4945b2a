/// Where a simulated service's features come from.
public enum ServiceSource: Sendable, Hashable {
    /// A generated snowplow fleet.
    case fleet(FleetConfiguration)
    /// A file: an `entitystream record` recording, Esri feature JSON lines, or a JSON array of features.
    case recording(path: String)
    /// A CSV of timestamped positions, mapped by column names.
    case csv(path: String, mapping: CSVColumnMapping)
}

/// One service the simulator serves: a name and a source.
public struct ServiceSpecification: Sendable, Hashable {
    public var name: String
    public var source: ServiceSource

    public init(name: String, source: ServiceSource) {
        self.name = name
        self.source = source
    }

    /// Parses a `--service NAME=SPEC` value: `NAME=fleet:N` or `NAME=FILE`
    /// (CSV files use `csvMapping`). Throws ``SimulatorError`` naming the problem.
    public static func parse(_ text: String, csvMapping: CSVColumnMapping?, fleet: FleetConfiguration) throws(SimulatorError) -> ServiceSpecification {
        guard let equals = text.firstIndex(of: "=") else {
            throw .serviceSyntax(text)
        }
        let name = String(text[..<equals])
        let spec = String(text[text.index(after: equals)...])
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw .serviceName(name)
        }
        guard !spec.isEmpty else { throw .serviceWithoutSource(name: name) }
        if spec.hasPrefix("fleet:") {
            guard let count = Int(spec.dropFirst(6)), count >= 1 else {
                throw .fleetSize(name: name, spec: spec)
            }
            var configuration = fleet
            configuration.vehicles = count
            return ServiceSpecification(name: name, source: .fleet(configuration))
        }
        return ServiceSpecification(name: name, source: source(forFile: spec, csvMapping: csvMapping))
    }

    /// A recording or, for `.csv` files or when a mapping is given, a CSV source.
    public static func source(forFile path: String, csvMapping: CSVColumnMapping?) -> ServiceSource {
        if let csvMapping, path.lowercased().hasSuffix(".csv") || !path.lowercased().hasSuffix(".json") {
            return .csv(path: path, mapping: csvMapping)
        }
        return .recording(path: path)
    }
}
