import EntityStreamCore
import EntityStreamRaster
import EntityStreamModel
import EntityStream

/// `--enrich NAME…`: the ``ObservationEnricher`` that adds the cell of each
/// named raster under every observation (see ``ObservationEnrichment``).
/// Each raster's actor samples the whole batch in one call; the cells are
/// then joined per observation in the order the names were given, each
/// observation's value in a buffer of its own (see ``ObservationEnrichment``).
/// Sendable.
struct RasterEnricher: ObservationEnricher {
    let rasters: [SessionRaster]
    let layout: ObservationEnrichment.Layout

    init(rasters: [SessionRaster]) {
        self.rasters = rasters
        layout = ObservationEnrichment.Layout(names: rasters.map(\.name))
    }

    func enrich(_ points: [Point?]) async -> ObservationEnrichments {
        var cells: [[ObservationEnrichment.Cell?]] = []
        var problems: [String] = []
        for raster in rasters {
            let answer = await raster.cells(under: points)
            cells.append(answer.cells)
            problems += answer.problems
        }
        var values: [ObservationEnrichment?] = []
        values.reserveCapacity(points.count)
        for index in points.indices { values.append(layout.enrichment { cells[$0][index] }) }
        return ObservationEnrichments(values: values, problems: problems)
    }
}
