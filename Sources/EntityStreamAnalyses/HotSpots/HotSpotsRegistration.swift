import EntityStreamCommandLine

extension AnalysisRegistration {
    /// Hot spots (Getis-Ord Gi*): the `hotspots` command on the live store, a file
    /// or a geoprocessing task, and `entitystream hotspots`.
    public static let hotSpots = AnalysisRegistration(
        name: "hotspots", controlCommands: [HotSpotsCommand.self],
        subcommand: Subcommand(HotSpotsSubcommand.self, name: "hotspots",
                               synopsis: "  entitystream hotspots FILE|TASK   hot spots (Getis-Ord Gi*) of a file, or a geoprocessing job"))
}
