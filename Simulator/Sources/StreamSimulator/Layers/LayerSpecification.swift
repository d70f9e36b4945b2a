import EntityStreamCore
import EntityStreamFeatures

/// One feature layer the simulator serves: a name and the file it is loaded
/// from (any format ``FeatureFile`` reads), with the load options (a forced
/// format, a column mapping).
public struct LayerSpecification: Sendable, Hashable {
    public var name: String
    public var path: String
    public var options: FeatureLoadOptions

    public init(name: String, path: String, options: FeatureLoadOptions = FeatureLoadOptions()) {
        self.name = name
        self.path = path
        self.options = options
    }

    /// Parses a `--layer NAME=FILE` value. Throws ``SimulatorError`` naming the problem.
    public static func parse(_ text: String) throws(SimulatorError) -> LayerSpecification {
        let (name, file) = try split(text, flag: "--layer", what: "FILE")
        return LayerSpecification(name: name, path: file)
    }

    /// Splits `NAME=VALUE` (the first `=`), checking the name: letters,
    /// digits, `_` or `-`. Used by `--service`, `--layer`, `--hotspots`, `--columns`, `--in-sr`, `--file-format`.
    public static func split(_ text: String, flag: String, what: String) throws(SimulatorError) -> (name: String, value: String) {
        guard let equals = text.firstIndex(of: "=") else {
            throw .specificationSyntax(flag: flag, what: what, text: text)
        }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw .specificationName(flag: flag, name: name)
        }
        guard !value.isEmpty else { throw .specificationValueMissing(flag: flag, name: name, what: what) }
        return (name, value)
    }
}
