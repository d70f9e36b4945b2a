import EntityStreamCommandLine

extension AnalysisRegistration {
    /// Time-extent queries: `query-observations` on the live store (or a remote
    /// layer), and `entitystream query` on a feature layer or a file.
    public static let query = AnalysisRegistration(
        name: "query", controlCommands: [QueryObservationsCommand.self],
        subcommand: Subcommand(QuerySubcommand.self, name: "query",
                               synopsis: "  entitystream query LAYER|FILE     query a feature layer or a file (time extent, where, …)"))
}
