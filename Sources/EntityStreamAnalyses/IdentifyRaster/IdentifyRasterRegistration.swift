import EntityStreamCommandLine

extension AnalysisRegistration {
    /// Identify a raster cell: the `identify` command on the session's rasters,
    /// and `entitystream identify` on a GeoTIFF.
    public static let identifyRaster = AnalysisRegistration(
        name: "identify", controlCommands: [IdentifyRasterCommand.self],
        subcommand: Subcommand(IdentifySubcommand.self, name: "identify",
                               synopsis: "  entitystream identify RASTER.tif  the raster cell under points (--at x,y or JSON lines on stdin)"))
}
