import EntityStream
import EntityStreamCommandLine

/// What one analysis adds to a program: its control commands (stdin commands
/// on a running stream, answered through the ``AnalysisRuntime``) and,
/// optionally, its one-shot subcommand (the same job on a file or a remote
/// service). The stream library knows no analysis; a program lists the ones
/// it offers (`entitystream`: `Program.analyses` in `Sources/EntityStreamCLI/Program.swift`)
/// and builds its ``ControlCommandRegistry`` and subcommand table from them.
///
/// Each analysis lives in its own folder of `Sources/EntityStreamAnalyses/` with
/// one static registration, e.g. ``statistics``.
public struct AnalysisRegistration: Sendable {
    /// The analysis's name, for messages.
    public let name: String
    /// Its stdin commands.
    public let controlCommands: [any ControlCommand.Type]
    /// Its one-shot subcommand, if it has one.
    public let subcommand: Subcommand?

    public init(name: String, controlCommands: [any ControlCommand.Type], subcommand: Subcommand? = nil) {
        self.name = name
        self.controlCommands = controlCommands
        self.subcommand = subcommand
    }
}

extension ControlCommandRegistry {
    /// The stream's own commands (``ControlCommandRegistry/streamControl``) and those of `analyses`.
    public init(analyses: [AnalysisRegistration]) {
        self.init(Self.streamControl + analyses.flatMap { $0.controlCommands })
    }
}
