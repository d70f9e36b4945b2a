import EntityStreamCore
import EntityStreamFeatures
import EntityStreamFiles

/// A loaded feature layer: its table, its description (what `?f=json`
/// answers) and the query engine that answers `query`. A polygon layer (a
/// hot-spot result's fishnet cells) keeps each row's polygon beside the
/// table, whose points are the cells' centres: it is described and answered
/// as `esriGeometryPolygon`, and its spatial filters test the polygons.
/// Immutable; `Sendable`.
public struct SimulatedLayer: Sendable {
    public let name: String
    public let table: FeatureTable
    public let description: LayerDescription
    let engine: FeatureQueryEngine
    /// Each row's polygon, for a polygon layer.
    let polygons: RowPolygons?

    /// Loads `specification` from its file. Throws ``SimulatorError`` with the loader's message (file and line).
    public static func load(_ specification: LayerSpecification, maxRecordCount: Int, supportsPagination: Bool,
                            statistics: (any FeatureStatisticsEngine)?) throws(SimulatorError) -> SimulatedLayer {
        var options = specification.options
        options.name = specification.name
        let table: FeatureTable
        do throws(FeatureLoadError) { table = try FeatureFile.load(path: specification.path, options: options) } catch {
            throw .layerFile(name: specification.name, error)
        }
        return SimulatedLayer(table: table, maxRecordCount: maxRecordCount, supportsPagination: supportsPagination, statistics: statistics)
    }

    /// A layer serving `table` (already loaded or built).
    public init(table: FeatureTable, maxRecordCount: Int, supportsPagination: Bool, statistics: (any FeatureStatisticsEngine)? = nil,
                polygons: RowPolygons? = nil) {
        name = table.name
        self.table = table
        self.polygons = polygons
        engine = FeatureQueryEngine(maxRecordCount: maxRecordCount, supportsPagination: supportsPagination, statistics: statistics)
        var description = LayerDescription(table: table, id: 0, engine: engine)
        if let polygons {
            description.geometryType = "esriGeometryPolygon"
            description.extent = polygons.bounds(ofRows: 0..<table.count, wkid: table.spatialReference)
        }
        self.description = description
    }
}
