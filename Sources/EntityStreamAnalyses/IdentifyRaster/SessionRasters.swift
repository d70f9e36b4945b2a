import EntityStreamCore
import EntityStreamRaster
import EntityStream
import EntityStreamProjection

/// The rasters a session opened (`--raster NAME=FILE.tif`, repeatable), by
/// name, each owned by its ``SessionRaster`` actor: the session resource
/// analyses find as `environment[SessionRasters.self]`.
///
/// ``open(_:options:)`` opens every file before the stream starts, so a bad
/// file stops the session at once with an error naming the raster;
/// ``enricher(names:)`` checks that each raster to enrich with can take
/// WGS84 points (georeferenced, known CRS) and builds the
/// ``ObservationEnricher`` of `--enrich`. A value type; `Sendable`.
public struct SessionRasters: Sendable {
    /// In the order they were given.
    public let rasters: [SessionRaster]

    public init(_ rasters: [SessionRaster] = []) {
        self.rasters = rasters
    }

    public var names: [String] { rasters.map(\.name) }
    public var isEmpty: Bool { rasters.isEmpty }

    /// The raster named `name`.
    public subscript(name: String) -> SessionRaster? {
        rasters.first { $0.name == name }
    }

    /// Opens each `(name, path)`; names must be distinct. Throws
    /// ``SessionRasterError`` naming the raster that failed.
    public static func open(_ specifications: [(name: String, path: String)],
                            options: RasterOpenOptions = RasterOpenOptions()) throws(SessionRasterError) -> SessionRasters {
        var opened: [SessionRaster] = []
        for (name, path) in specifications {
            guard !opened.contains(where: { $0.name == name }) else { throw .duplicateName(name) }
            do { opened.append(try SessionRaster(name: name, path: path, options: options)) } catch {
                throw .cannotOpen(name: name, error)
            }
        }
        return SessionRasters(opened)
    }

    /// The enricher adding the cells of the rasters `names` (in that order)
    /// to every observation, or nil when `names` is empty. Throws
    /// ``SessionRasterError`` for a name no raster has, or a raster that
    /// cannot place a WGS84 point (no georeferencing, unknown CRS).
    public func enricher(names: [String]) async throws(SessionRasterError) -> (any ObservationEnricher)? {
        guard !names.isEmpty else { return nil }
        var chosen: [SessionRaster] = []
        for name in names {
            guard let raster = self[name] else { throw .unknownName(name, open: self.names) }
            guard !chosen.contains(where: { $0.name == name }) else { continue }
            do { try await raster.check(.wgs84) } catch { throw .cannotEnrich(name: name, error) }
            chosen.append(raster)
        }
        return RasterEnricher(rasters: chosen)
    }
}

/// Why the session's rasters could not be set up.
public enum SessionRasterError: Error, Sendable, CustomStringConvertible {
    case duplicateName(String)
    case cannotOpen(name: String, RasterError)
    case unknownName(String, open: [String])
    case cannotEnrich(name: String, RasterError)

    /// True when the command line itself is at fault (a name), not a file.
    public var isUsageError: Bool {
        switch self {
        case .duplicateName, .unknownName: true
        // A file that cannot be opened (missing, a directory, unreadable) is a runtime failure (exit 1), as for replay and query.
        case .cannotOpen, .cannotEnrich: false
        }
    }

    public var description: String {
        switch self {
        case .duplicateName(let name): "--raster \(name) is given twice; give each raster its own name"
        case .cannotOpen(let name, let error): "--raster \(name): \(error)"
        case .unknownName(let name, let open):
            "--enrich \(name): no raster is named \(name)" + (open.isEmpty ? " (open one with --raster \(name)=FILE.tif)" : " (open: \(open.joined(separator: ", ")))")
        case .cannotEnrich(let name, let error): "--enrich \(name): observations cannot be placed on this raster: \(error)"
        }
    }
}
