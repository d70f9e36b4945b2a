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

    /// Parses a `--service NAME=SPEC` value: `NAME=fleet:N` (the fleet
    /// `fleet` with N vehicles) or `NAME=FILE` (a recording; ``mappingCSV(_:)``
    /// makes it a CSV of tracks). The name is read as every `NAME=` flag's
    /// (``LayerSpecification/split(_:flag:what:)``). Throws ``SimulatorError`` naming the problem.
    public static func parse(_ text: String, fleet: FleetConfiguration) throws(SimulatorError) -> ServiceSpecification {
        let (name, spec) = try LayerSpecification.split(text, flag: "--service", what: "FILE or fleet:N")
        guard spec.hasPrefix("fleet:") else { return ServiceSpecification(name: name, source: .recording(path: spec)) }
        guard let count = Int(spec.dropFirst(6)), count >= 1 else {
            throw .fleetSize(name: name, spec: spec)
        }
        var configuration = fleet
        configuration.vehicles = count
        return ServiceSpecification(name: name, source: .fleet(configuration))
    }

    /// This service with its file read as a CSV of tracks when `csvMapping`
    /// applies to it (``source(forFile:csvMapping:)``); a fleet stays as it is.
    public func mappingCSV(_ csvMapping: CSVColumnMapping?) -> ServiceSpecification {
        guard case .recording(let path) = source else { return self }
        return ServiceSpecification(name: name, source: Self.source(forFile: path, csvMapping: csvMapping))
    }

    /// A recording or, for `.csv` files or when a mapping is given, a CSV source.
    public static func source(forFile path: String, csvMapping: CSVColumnMapping?) -> ServiceSource {
        if let csvMapping, path.lowercased().hasSuffix(".csv") || !path.lowercased().hasSuffix(".json") {
            return .csv(path: path, mapping: csvMapping)
        }
        return .recording(path: path)
    }
}
