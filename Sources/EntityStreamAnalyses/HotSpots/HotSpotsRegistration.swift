import EntityStreamCommandLine

extension AnalysisRegistration {
    /// Hot spots (Getis-Ord Gi*): the `hotspots` command on the live store, a file
    /// or a geoprocessing task, and `entitystream hotspots`.
    public static let hotSpots = AnalysisRegistration(
        name: "hotspots",
        controlCommands: [HotSpotsCommand.self],
        subcommand: Subcommand(
            name: "hotspots",
            synopsis: "  entitystream hotspots FILE|TASK   hot spots (Getis-Ord Gi*) of a file, or a geoprocessing job",
            help: HotSpotsSubcommand.help) { arguments in try await HotSpotsSubcommand(arguments: &arguments).run() })
}
