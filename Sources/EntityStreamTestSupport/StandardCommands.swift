import EntityStream
import EntityStreamAnalyses

extension ControlCommandRegistry {
    /// The commands the tests drive: the stream's own and every analysis of the
    /// package, as `entitystream` registers them (`Program.analyses`).
    public static let standard = ControlCommandRegistry(analyses: [.query, .statistics, .hotSpots, .identifyRaster])
}

extension ControlCommandHandler {
    /// A handler for ``ControlCommandRegistry/standard``.
    public init(session: ControlSession) {
        self.init(session: session, registry: .standard)
    }
}
