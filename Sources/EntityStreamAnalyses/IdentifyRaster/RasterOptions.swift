import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamModel

/// `--raster NAME=FILE.tif` (repeatable) and `--enrich NAME` (repeatable),
/// shared by `connect`, `replay` and the demo: the rasters the session
/// opens before streaming (for the `identify` control command) and those
/// whose cells are added to every observation.
public struct RasterOptions {
    public var rasters: [(name: String, path: String)] = []
    public var enrich: [String] = []

    public init() {}

    public static let help = """
      Rasters (GeoTIFF):
        --raster NAME=FILE.tif      open a raster for the session (repeatable); the
                                    identify control command answers from it
        --enrich NAME               add the cell of raster NAME under every observation to its
                                    observation and entity-received events, as
                                    "raster":{"NAME":{"Band_0":…,"Pixel.Type":…}} (repeatable)
    """

    /// Consumes `flag` (and its value) if it is one of these options; false if not.
    public mutating func parse(_ flag: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch flag {
        case "--raster":
            let text = try arguments.value(for: flag)
            guard let equals = text.firstIndex(of: "=") else {
                throw .malformed(flag, value: text, expected: "NAME=FILE.tif (e.g. --raster dem=elevation.tif)")
            }
            let name = String(text[..<equals]).trimmingSpaces
            let path = String(text[text.index(after: equals)...])
            guard !name.isEmpty, name.count <= 64, !path.isEmpty else {
                throw .malformed(flag, value: text, expected: "NAME=FILE.tif with a NAME of 1 to 64 characters and a FILE")
            }
            guard !rasters.contains(where: { $0.name == name }) else { throw .repeated(flag: "--raster \(name)", advice: "give each raster its own name") }
            rasters.append((name, path))
        case "--enrich":
            let name = try arguments.value(for: flag).trimmingSpaces
            guard !name.isEmpty else { throw .malformed(flag, value: name, expected: "the NAME of a --raster") }
            if !enrich.contains(name) { enrich.append(name) }
        default:
            return false
        }
        return true
    }

    /// Checks combinations once every flag is read.
    public func validate() throws(UsageError) {
        for name in enrich where !rasters.contains(where: { $0.name == name }) {
            throw .unknownName(name, flag: "--enrich", definedBy: "raster (--raster \(name)=FILE.tif)")
        }
    }

    /// Opens the rasters and builds the enricher, before anything streams.
    /// A name at fault or a file that does not exist is a ``UsageError``;
    /// a file that cannot be read as a georeferenced GeoTIFF is a runtime
    /// error (``SessionRasterError``).
    public func open() async throws -> (rasters: SessionRasters, enricher: (any ObservationEnricher)?) {
        guard !rasters.isEmpty else { return (SessionRasters(), nil) }
        do {
            let opened = try SessionRasters.open(rasters)
            return (opened, try await opened.enricher(names: enrich))
        } catch {
            switch error {
            case .duplicateName(let name): throw UsageError.repeated(flag: "--raster \(name)", advice: "give each raster its own name")
            case .unknownName(let name, _): throw UsageError.unknownName(name, flag: "--enrich", definedBy: "raster (--raster \(name)=FILE.tif)")
            case .cannotOpen, .cannotEnrich: throw error
            }
        }
    }
}
