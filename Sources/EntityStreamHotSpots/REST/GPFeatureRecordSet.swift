import EntityStreamProjection
import EntityStreamCore
import EntityStreamModel

/// The value of a `GPFeatureRecordSetLayer` result (`Output_Features`): an
/// Esri JSON feature set, read into ``AnalysisFeature``s as the `hotspots`
/// command prints them.
///
/// Reads `spatialReference` (`wkid`, else `latestWkid`), `geometryType` and
/// `features[{attributes, geometry}]`; point geometries `{x, y}` and polygons
/// `{rings}` are kept (in the set's spatial reference), a missing or null
/// geometry gives a feature without one. Any other shape throws
/// ``GPRESTError`` naming the feature. Attributes keep the server's order.
public struct GPFeatureRecordSet: Sendable, Hashable {
    public var geometryType: String?
    public var wkid: Int?
    public var features: [AnalysisFeature]

    public init(geometryType: String?, wkid: Int?, features: [AnalysisFeature]) {
        self.geometryType = geometryType
        self.wkid = wkid
        self.features = features
    }

    public init(json: JSONValue) throws(GPRESTError) {
        let reader = try GPJSONReader(json, name: "feature set")
        geometryType = try reader.optionalString("geometryType")
        if let reference = try reader.optionalObject("spatialReference") {
            wkid = SpatialReference.code(ofJSON: .object(reference))
        }
        guard let list = try reader.optionalArray("features") else { throw .missingMember("features", in: "feature set") }
        features = []
        features.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            let name = "features[\(index)]"
            let feature = try GPJSONReader(item, name: name)
            let attributes = try feature.optionalObject("attributes") ?? JSONObject()
            let geometry = try Self.geometry(feature.object["geometry"], wkid: wkid, name: name)
            features.append(AnalysisFeature(geometry: geometry, attributes: attributes))
        }
    }

    private static func geometry(_ value: JSONValue?, wkid: Int?, name: String) throws(GPRESTError) -> AnalysisGeometry? {
        guard let value, !value.isNull else { return nil }
        guard let object = value.objectValue else { throw .wrongType("geometry", expected: "an object", in: name) }
        if let x = object["x"], let y = object["y"] {
            guard let x = x.doubleValue, let y = y.doubleValue else { throw .wrongType("geometry", expected: "numbers x and y", in: name) }
            return .point(Point(x: x, y: y, wkid: wkid))
        }
        if let rings = object["rings"] {
            guard let list = rings.arrayValue else { throw .wrongType("rings", expected: "an array of rings", in: name) }
            var result: [[AnalysisGeometry.Coordinate]] = []
            for ring in list {
                guard let corners = ring.arrayValue else { throw .wrongType("rings", expected: "arrays of [x, y] pairs", in: name) }
                var coordinates: [AnalysisGeometry.Coordinate] = []
                for corner in corners {
                    guard let pair = corner.arrayValue, pair.count >= 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue else {
                        throw .wrongType("rings", expected: "arrays of [x, y] pairs", in: name)
                    }
                    coordinates.append(AnalysisGeometry.Coordinate(x: x, y: y))
                }
                result.append(coordinates)
            }
            return .polygon(rings: result, wkid: wkid)
        }
        if object.isEmpty { return nil }
        throw .wrongType("geometry", expected: "a point {x, y} or a polygon {rings}", in: name)
    }
}
