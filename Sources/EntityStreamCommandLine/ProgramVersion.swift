import EntityStreamProjection

/// The version both programs print for `--version`: the package's, and the
/// PROJ library it runs on.
public enum ProgramVersion {
    /// The package's version.
    public static let number = "0.9.0"

    /// `NAME 0.9.0 (PROJ 9.1.1)`.
    public static func line(program: String) -> String {
        "\(program) \(number) (PROJ \(ProjectionLibrary.version))"
    }
}
