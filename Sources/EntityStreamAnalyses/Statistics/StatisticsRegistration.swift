import EntityStreamCommandLine

extension AnalysisRegistration {
    /// Grouped statistics: the `statistics` command on the live store, a file or a
    /// layer, and `entitystream statistics`.
    public static let statistics = AnalysisRegistration(
        name: "statistics", controlCommands: [StatisticsControlCommand.self],
        subcommand: Subcommand(StatisticsSubcommand.self, name: "statistics",
                               synopsis: "  entitystream statistics LAYER|FILE --stat TYPE:FIELD\n"
                                   + "                                    grouped statistics of a feature layer or a file"))
}
