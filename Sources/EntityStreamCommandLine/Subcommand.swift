/// One subcommand of a program (`entitystream connect`, `entitystream statistics`, …):
/// its name, its lines in the program's general help, its own help, and how it
/// runs from the words after its name. A program keeps a table of them and
/// dispatches on the name; an analysis brings its own (`AnalysisRegistration`).
public struct Subcommand: Sendable {
    /// The word that selects it (`statistics`).
    public let name: String
    /// Its lines in the program's general help, as printed (usage and one-line description).
    public let synopsis: String
    /// Its `--help` text (also `help NAME`).
    public let help: String
    /// Whether it runs a live stream (demo, connect, replay, …), whose analyses then yield to it.
    public let streaming: Bool
    /// Parses the words after its name and runs; returns the exit status.
    public let run: @Sendable (inout ArgumentList) async throws -> Int32

    public init(name: String, synopsis: String, help: String, streaming: Bool = false,
                run: @escaping @Sendable (inout ArgumentList) async throws -> Int32) {
        self.name = name
        self.synopsis = synopsis
        self.help = help
        self.streaming = streaming
        self.run = run
    }
}

/// A subcommand's type: its help, and a value parsed from the words after its
/// name that runs (`QuerySubcommand`, `DemoCommand`, …).
public protocol RunnableCommand {
    /// The `--help` text.
    static var help: String { get }
    /// Parses the words after the subcommand's name; throws ``UsageError`` or ``HelpRequested``.
    init(arguments: inout ArgumentList) throws
    /// Runs; returns the exit status.
    func run() async throws -> Int32
}

extension Subcommand {
    /// The subcommand `name` that parses and runs a `Command`, with its help.
    public init<Command: RunnableCommand>(_ command: Command.Type, name: String, synopsis: String, streaming: Bool = false) {
        self.init(name: name, synopsis: synopsis, help: Command.help, streaming: streaming) { arguments in
            try await Command(arguments: &arguments).run()
        }
    }
}
