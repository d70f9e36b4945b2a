import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamModel

/// `entitystream identify RASTER.tif …`: the "Identify raster cell" sample —
/// the cell of a GeoTIFF under each point, one JSON line per point, then a
/// summary line, through the analysis runtime.
struct IdentifySubcommand: RunnableCommand {
    var path = ""
    var points: [IdentifyPoint] = []
    var spatialReference: SpatialReference?
    var outSpatialReference: SpatialReference?
    var format = OutputFormat.esri

    static let help = """
    Usage: entitystream identify RASTER.tif [--at x,y]… [--in-sr SR] [--out-sr SR] [--format esri|geojson|csv]

    Identifies the cell of a GeoTIFF under each point and prints one JSON line per
    point (an analysis result: the cell's extent as a polygon in the point's
    spatial reference, or --out-sr's, its Band_0…, Pixel.Type, column, row,
    xmin, ymin, xmax, ymax), then a summary line. A NoData cell has null bands
    and "NoData": true; a point outside the raster, or on its right or bottom
    edge, has "cell": null (and null attributes).

    Without --at, points are read from stdin as JSON lines {"x":…,"y":…,"inSR":…}
    ("inSR" and an "id" to echo are optional); a line that is not a point is
    answered with an "error" naming its line number, and the rest go on.

    Example:
      entitystream identify dem.tif --at -111.9,40.6 --in-sr 4326

    Options:
      --at x,y                    a point (repeatable)
      --in-sr SR                  the spatial reference of points that give none (default: the
                                  raster's own): a WKID (4326, 3857…), EPSG:n, ESRI:n or WKT
      --out-sr SR                 write the answers in this spatial reference (default: each point's)
      --format esri|geojson|csv   Esri JSON lines (default); or the answers for a GIS: one GeoJSON
                                  Feature per point (WGS84), or a CSV table with x/y columns (WGS84
                                  unless --out-sr), the other lines as JSON on stderr
      -h, --help                  show this help
    """

    /// Deprecated spellings still read.
    static let aliases = ["--sr": "--in-sr"]

    init(arguments: inout ArgumentList) throws {
        arguments.aliases = Self.aliases
        while let word = try arguments.nextFlag() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--at":
                let text = try arguments.value(for: word)
                let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
                guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite else {
                    throw UsageError.malformed(word, value: text, expected: "x,y (two numbers, e.g. --at -111.9,40.6)")
                }
                points.append(IdentifyPoint(x: x, y: y))
            case "--in-sr": spatialReference = try arguments.spatialReference(for: word)
            case "--out-sr": outSpatialReference = try arguments.spatialReference(for: word)
            case "--format": format = try arguments.format(for: word)
            default:
                if word.hasPrefix("-") && word.count > 1 { throw arguments.unknownOption(word, command: "identify") }
                guard path.isEmpty else { throw UsageError.unexpectedArgument(word, command: "identify", expected: "one raster") }
                path = word
            }
        }
        guard !path.isEmpty else { throw UsageError.missingArgument("the RASTER.tif to identify in", command: "identify") }
        try ArgumentList.checkFormat(format, outSR: outSpatialReference)
    }

    func run() async throws -> Int32 {
        let raster: SessionRaster
        do { raster = try SessionRaster(name: path, path: path) } catch {
            // Missing, a directory or unreadable: a runtime failure (1), as replay and query say it.
            Stderr.line("entitystream: identify: \(error)")
            return 1
        }
        if let spatialReference {
            do { try await raster.check(spatialReference) } catch {
                switch error {
                case .unknownSpatialReference, .noTransformation:
                    throw UsageError.invalidValue(flag: "--in-sr \(spatialReference.label)", error: error)
                case .unknownRasterCRS:
                    // The raster's fault, not the option's: a runtime failure naming the file.
                    Stderr.line("entitystream: identify: \(error)")
                    return 1
                default:
                    break   // no georeferencing: the job says so
                }
            }
        }
        let input: IdentifyRasterJob.Input = points.isEmpty ? .jsonLines(Self.numberedLines()) : .points(points)
        let job = IdentifyRasterJob(raster: raster, input: input, defaultSpatialReference: spatialReference,
                                    outSpatialReference: outSpatialReference)
        var analysis = OneShotAnalysis(format: format)
        analysis.coordinates = outSpatialReference ?? .wgs84
        return await analysis.run("identify", job: job)
    }

    /// Every stdin line, empty ones included (the job numbers them); a line
    /// over the limit comes as text the job answers as not a point, naming its size.
    private static func numberedLines() -> AsyncStream<[UInt8]> {
        let lines = StandardInputLines.stream(keepingEmptyLines: true)
        return AsyncStream { continuation in
            let task = Task {
                for await line in lines {
                    switch line {
                    case .line(let bytes): continuation.yield(bytes)
                    case .tooLong(let count): continuation.yield(Array("a line of \(count) bytes, over the limit of \(StandardInputLines.maximumLineLength)".utf8))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
