import EntityStreamCore
import EntityStreamFeatures

/// One hot-spot geoprocessing service the simulator serves
/// (`--hotspots NAME=FILE`): the incidents file (any format ``FeatureFile``
/// reads) with its load options (the column mapping for x, y, the date and
/// the reference: `--columns NAME=x=C,y=C,time=C --in-sr NAME=N`).
public struct HotSpotServiceSpecification: Sendable, Hashable {
    public var name: String
    public var path: String
    public var options: FeatureLoadOptions

    /// The task's name, as the "Analyze hotspots" sample's service calls it.
    public static let taskName = "911 Calls Hotspot"

    public init(name: String, path: String, options: FeatureLoadOptions = FeatureLoadOptions()) {
        self.name = name
        self.path = path
        self.options = options
    }

    /// Parses a `--hotspots NAME=FILE` value. Throws ``SimulatorError`` naming the problem.
    public static func parse(_ text: String) throws(SimulatorError) -> HotSpotServiceSpecification {
        let (name, file) = try LayerSpecification.split(text, flag: "--hotspots", what: "FILE")
        return HotSpotServiceSpecification(name: name, path: file)
    }
}
