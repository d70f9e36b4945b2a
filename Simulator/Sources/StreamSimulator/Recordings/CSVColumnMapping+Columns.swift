import EntityStreamCore
import EntityStreamFeatures

extension CSVColumnMapping {
    /// The track CSV mapping of a `--columns` mapping: its `track`, `time`,
    /// `x` and `y` columns, all required (`track` defaults to `trackField`).
    /// - Throws: ``CSVError`` naming the missing keys, or columns named twice.
    public init(columns mapping: FeatureColumnMapping, trackField: String? = nil) throws(CSVError) {
        let track = mapping.track ?? trackField
        let named: [(String, String?)] = [("track", track), ("time", mapping.time), ("x", mapping.x), ("y", mapping.y)]
        let missing = named.filter { $0.1 == nil }.map(\.0)
        if !missing.isEmpty {
            throw CSVError(.trackColumnsMissing(missing))
        }
        self.init(id: track ?? "", time: mapping.time ?? "", x: mapping.x ?? "", y: mapping.y ?? "")
        try validate()
    }
}
