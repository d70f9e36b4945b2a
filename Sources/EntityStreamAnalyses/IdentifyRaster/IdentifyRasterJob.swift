import EntityStreamCore
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamModel
import EntityStream

/// Identify raster cell (the Esri sample): the cell of `raster` under each
/// point, one `result` line per point in input order (see
/// ``IdentifyAnswer/result(for:wkid:)`` for its shape), then a summary
/// (``IdentifyReport``) with the raster's description and the counts (and
/// `unreadable`: the points whose cells lie in a tile or strip that could
/// not be read, when there are any).
///
/// Input: a list of points (`--at`, the control command's `x`/`y` or
/// `points`), answered in chunks of ``chunkSize`` (each a PROJ batch each
/// way, about 16 ms; the raster actor is free between chunks for the
/// stream's enrichment), or JSON lines (stdin
/// of `entitystream identify`), each answered as it arrives; a line that is
/// not a point is answered with an `error` naming its line number, and the
/// rest go on. A raster without georeferencing fails the job at once (only
/// pixel coordinates could be identified). Honours cancellation between
/// chunks and lines.
public struct IdentifyRasterJob: AnalysisJob {
    /// Where the points come from.
    public enum Input: Sendable {
        case points([IdentifyPoint])
        /// JSON lines, numbered from 1 (empty lines count but are skipped).
        case jsonLines(AsyncStream<[UInt8]>)
    }

    public static let chunkSize = 16_384

    public let raster: SessionRaster
    public let input: Input
    /// The spatial reference of points that give none (nil: the raster's CRS).
    public let defaultSpatialReference: SpatialReference?
    /// The spatial reference answers are written in (nil: each point's own).
    public let outSpatialReference: SpatialReference?

    public init(raster: SessionRaster, input: Input, defaultSpatialReference: SpatialReference? = nil,
                outSpatialReference: SpatialReference? = nil) {
        self.raster = raster
        self.input = input
        self.defaultSpatialReference = defaultSpatialReference
        self.outSpatialReference = outSpatialReference
    }

    /// `result` with its geometry in ``outSpatialReference``, converted
    /// through PROJ (an answer whose geometry cannot be converted says why
    /// instead, and draws nothing).
    private func output(_ result: IdentifyResult) -> IdentifyResult {
        guard let target = outSpatialReference, let geometry = result.geometry, result.feature != nil else { return result }
        var result = result
        do {
            result.geometry = try geometry.converted(to: target)
        } catch {
            result.outputError = "outSR: \(error)"
        }
        return result
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let info = raster.info
        if info.geoTransform == nil {
            throw AnalysisFailure(RasterError.notGeoreferenced(path: info.path, reason: info.notGeoreferencedReason ?? "no geotransform").description)
        }
        var counts = IdentifyReport(raster: raster.name, info: info)
        switch input {
        case .points(let points):
            var start = points.startIndex
            while start < points.endIndex {
                try context.checkCancellation()
                let end = min(start + Self.chunkSize, points.endIndex)
                let chunk = points[start..<end]
                let answers = await raster.identify(chunk, defaultSpatialReference: defaultSpatialReference)
                var results: [AnalysisResult] = []
                results.reserveCapacity(answers.count)
                for (point, answer) in zip(chunk, answers) {
                    counts.count(answer)
                    results.append(.identify(output(answer.result(for: point, wkid: raster.answerWKID(point, defaultSpatialReference: defaultSpatialReference),
                                                                  bands: info.bandCount))))
                }
                await context.emit(results: results)
                start = end
            }
        case .jsonLines(let lines):
            var number = 0
            for await line in lines {
                try context.checkCancellation()
                number += 1
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                let point: IdentifyPoint
                do { point = try IdentifyPoint(jsonLine: line, line: number) } catch {
                    counts.points += 1
                    counts.errors += 1
                    await context.emit(results: [.identify(IdentifyAnswer.badLine(number, error: error))])
                    continue
                }
                let answers = await raster.identify([point][...], defaultSpatialReference: defaultSpatialReference)
                let answer = answers.first ?? .failed("no answer")
                counts.count(answer)
                await context.emit(results: [.identify(output(answer.result(for: point, wkid: raster.answerWKID(point, defaultSpatialReference: defaultSpatialReference),
                                                                            bands: info.bandCount)))])
            }
            try context.checkCancellation()
        }
        return AnalysisSummary(counts)
    }
}
