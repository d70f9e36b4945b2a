import EntityStreamCore
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamModel
import EntityStream

/// `identify`: the cell of a session raster (`--raster NAME=FILE.tif`)
/// under one point or several, answered through the analysis runtime
/// (``IdentifyRasterJob``).
///
/// ```json
/// {"id":5,"command":"identify","raster":"dem","x":-111.9,"y":40.6,"inSR":4326}
/// {"id":6,"command":"identify","raster":"dem","points":[{"x":-111.9,"y":40.6},{"x":425000,"y":4496000,"inSR":32612}],"inSR":4326,"outSR":3857}
/// ```
///
/// `raster` names an open raster (it may be left out when the session has
/// exactly one); `x` and `y` give one point, or `points` (up to
/// ``maximumPoints``) several, each `{"x","y"[,"inSR"][,"id"]}`; `inSR` is
/// the spatial reference of points that give none (default: the raster's
/// own CRS), `outSR` the one answers are written in (default: each point's).
/// `sr` is still read for `inSR`.
public struct IdentifyRasterCommand: ControlCommand {
    public static let name = "identify"
    public static let members: Set<String> = ["raster", "x", "y", "sr", "inSR", "outSR", "points"]
    public static let maximumPoints = 1_000_000

    public let id: JSONValue
    public let raster: String?
    public let points: [IdentifyPoint]
    public let spatialReference: SpatialReference?
    public let outSpatialReference: SpatialReference?

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        raster = try members.string("raster")
        if members.value("sr") != nil, members.value("inSR") != nil { throw members.error(.conflicting("inSR", "sr")) }
        do throws(IdentifyPointError) {
            spatialReference = members.value("inSR") != nil ? try IdentifyPoint.spatialReference(members.value("inSR"), "inSR")
                : try IdentifyPoint.spatialReference(members.value("sr"), "sr")
            outSpatialReference = try IdentifyPoint.spatialReference(members.value("outSR"), "outSR")
        } catch {
            throw members.error(IdentifyCommandError.point(error))
        }
        let x = members.value("x"), y = members.value("y")
        if let list = members.value("points") {
            guard x == nil && y == nil else { throw members.error(.conflictingGroups(["x", "y"], ["points"])) }
            guard let array = list.arrayValue else { throw members.error(IdentifyCommandError.pointsNotAnArray) }
            guard !array.isEmpty, array.count <= Self.maximumPoints else {
                throw members.error(.countOutOfRange(member: "points", range: 1...Self.maximumPoints, count: array.count))
            }
            var points: [IdentifyPoint] = []
            points.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                guard let object = element.objectValue else { throw members.error(.elementNotAnObject(member: "points", index: index, expected: #"{"x":…,"y":…}"#)) }
                do throws(IdentifyPointError) { points.append(try IdentifyPoint(object: object)) } catch {
                    throw members.error(IdentifyCommandError.pointAt(index: index, error))
                }
            }
            self.points = points
        } else {
            guard let x, let y else { throw members.error(IdentifyCommandError.noPoint) }
            do throws(IdentifyPointError) {
                points = [IdentifyPoint(x: try IdentifyPoint.coordinate(x, "x"), y: try IdentifyPoint.coordinate(y, "y"))]
            } catch {
                throw members.error(IdentifyCommandError.point(error))
            }
        }
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        let rasters = session.runtime.environment[SessionRasters.self] ?? SessionRasters()
        guard !rasters.isEmpty else {
            return response(ok: false, error: "no raster is open in this session (start it with --raster NAME=FILE.tif)")
        }
        let chosen: SessionRaster?
        if let raster {
            chosen = rasters[raster]
        } else {
            chosen = rasters.rasters.count == 1 ? rasters.rasters[0] : nil
        }
        guard let chosen else {
            let open = rasters.names.joined(separator: ", ")
            return response(ok: false, error: raster.map { "no raster is named '\($0)' (open: \(open))" } ?? "name the raster with \"raster\" (open: \(open))")
        }
        return .job(IdentifyRasterJob(raster: chosen, input: .points(points), defaultSpatialReference: spatialReference,
                                      outSpatialReference: outSpatialReference))
    }
}
