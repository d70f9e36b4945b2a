import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamFeatures
import EntityStreamFiles

/// A loaded hot-spot geoprocessing service: its task (the incidents and
/// the analysis) and the board of its jobs. Sendable.
struct SimulatedHotSpotService: Sendable {
    let name: String
    let task: HotSpotTask
    let jobs: GPJobBoard

    /// Loads `specification`'s file. Throws ``SimulatorError`` with the loader's message.
    static func load(_ specification: HotSpotServiceSpecification, configuration: SimulatorConfiguration) throws(SimulatorError) -> SimulatedHotSpotService {
        var options = specification.options
        options.name = specification.name
        let table: FeatureTable
        do throws(FeatureLoadError) { table = try FeatureFile.load(path: specification.path, options: options) } catch {
            throw .hotSpotFile(name: specification.name, error)
        }
        guard table.geometryType == .point else {
            throw .hotSpotsWithoutPoints(name: specification.name, path: specification.path)
        }
        let task = HotSpotTask(serviceName: specification.name, table: table)
        return SimulatedHotSpotService(name: specification.name, task: task,
                                       jobs: GPJobBoard(task: task, delay: configuration.jobDelayMilliseconds,
                                                        execution: configuration.jobExecutionMilliseconds,
                                                        maxRecordCount: configuration.maxRecordCount, log: configuration.log))
    }
}
