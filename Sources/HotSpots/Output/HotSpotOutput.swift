import EntityStreamCore

/// A hot-spot result as the features every front end writes — the `result`
/// lines of the `hotspots` command, the simulator's `Output_Features`, the
/// features its result map layer serves — so local and remote results have
/// one shape:
///
/// attributes `OBJECTID` (1, 2, 3… in result order), `SOURCE_ID` (the source
/// row's object id or the observation's id; −1 for fishnet cells), the
/// value (`JOIN_COUNT`/`ICOUNT` as integers, or the value field as a
/// double), `GiZScore`, `GiPValue` (null when undefined), `NNeighbors`,
/// `Gi_Bin`; geometry the point or the fishnet cell polygon.
///
/// Coordinates are the engine's (``HotSpotPointReading/outputWKID``), or
/// Web Mercator when asked for and the results are in WGS84
/// (``init(result:valueField:sourceID:wkid:outSR:)`` says whether it can).
/// A value; building a feature is pure.
public struct HotSpotOutput: Sendable {
    public let result: HotSpotResult
    /// The value field's output name: the count field, else the caller's field.
    public let valueFieldName: String
    /// The spatial reference of the written geometries.
    public let wkid: Int?
    private let sourceID: @Sendable (Int32) -> Int64
    private let toWebMercator: Bool

    /// - Parameters:
    ///   - valueField: the name of the analysed field of weighted input (ignored for counts).
    ///   - sourceID: the source id of a record number.
    ///   - wkid: the spatial reference of the result's coordinates.
    ///   - outSR: write in this spatial reference instead; nil when it cannot
    ///     be honoured (see ``canConvert(from:to:)``) — the caller says so.
    public init(result: HotSpotResult, valueField: String?, sourceID: @escaping @Sendable (Int32) -> Int64, wkid: Int?, outSR: Int? = nil) {
        self.result = result
        valueFieldName = result.valueField ?? valueField ?? "VALUE"
        self.sourceID = sourceID
        if let outSR, wkid == 4326, WebMercator.isWebMercator(outSR) {
            toWebMercator = true
            self.wkid = outSR
        } else {
            toWebMercator = false
            self.wkid = wkid
        }
    }

    /// True when results in `wkid` can be written in `outSR` (the same, or WGS84 to Web Mercator).
    public static func canConvert(from wkid: Int?, to outSR: Int) -> Bool {
        outSR == wkid || (wkid == 4326 && WebMercator.isWebMercator(outSR)) || (WebMercator.isWebMercator(wkid) && WebMercator.isWebMercator(outSR))
    }

    public var count: Int { result.features.count }

    /// `esriGeometryPolygon` for fishnet cells, else `esriGeometryPoint`.
    public var geometryType: String { HotSpotEsriJSON.geometryType(result) }

    /// The `fields` of the output, in attribute order.
    public var fields: JSONValue { HotSpotEsriJSON.fields(result, valueField: valueFieldName) }

    /// Feature `index` (0-based) of the result.
    public func feature(_ index: Int) -> AnalysisFeature {
        let feature = result.features[index]
        var attributes = JSONObject()
        attributes.append(key: "OBJECTID", value: .int(Int64(index) + 1))
        attributes.append(key: "SOURCE_ID", value: .int(feature.column >= 0 ? -1 : sourceID(feature.recordNumber)))
        if result.valueField == nil {
            attributes.append(key: valueFieldName, value: .double(feature.value))
        } else {
            attributes.append(key: valueFieldName, value: .int(Int64(feature.value)))
        }
        attributes.append(key: "GiZScore", value: feature.zScore.map { .double($0) } ?? .null)
        attributes.append(key: "GiPValue", value: feature.pValue.map { .double($0) } ?? .null)
        attributes.append(key: "NNeighbors", value: .int(Int64(feature.neighborCount)))
        attributes.append(key: "Gi_Bin", value: .int(Int64(feature.bin)))
        return AnalysisFeature(geometry: geometry(of: feature), attributes: attributes)
    }

    /// The feature's point (a fishnet cell's centre) in the output spatial reference.
    public func point(_ index: Int) -> Point {
        let feature = result.features[index]
        return convert(feature.x, feature.y)
    }

    private func geometry(of feature: HotSpotFeature) -> AnalysisGeometry {
        switch result.geometry(of: feature) {
        case .point(let x, let y):
            return .point(convert(x, y))
        case .polygon(let ring):
            let corners = ring.map { corner -> AnalysisGeometry.Coordinate in
                let p = convert(corner[0], corner[1])
                return AnalysisGeometry.Coordinate(x: p.x, y: p.y)
            }
            return .polygon(rings: [corners], wkid: wkid)
        }
    }

    private func convert(_ x: Double, _ y: Double) -> Point {
        let point = Point(x: x, y: y, wkid: wkid)
        guard toWebMercator else { return point }
        var projected = WebMercator.project(point)
        projected.wkid = wkid
        return projected
    }

    /// The whole result as an Esri JSON feature set, `{"geometryType",
    /// "spatialReference", "fields", "features", "exceededTransferLimit":false}`
    /// (the value of a `GPFeatureRecordSetLayer` result), written feature by feature.
    public func featureSet() -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + count * 200)
        writer.appendRaw("{\"geometryType\":")
        writer.appendString(geometryType)
        if let wkid {
            writer.appendRaw(",\"spatialReference\":{\"wkid\":")
            writer.appendInt(Int64(wkid))
            writer.appendRaw("}")
        }
        writer.appendRaw(",\"fields\":")
        writer.append(fields)
        writer.appendRaw(",\"exceededTransferLimit\":false,\"features\":[")
        for index in 0..<count {
            if index > 0 { writer.appendRaw(",") }
            let feature = feature(index)
            writer.appendRaw("{\"attributes\":")
            writer.append(.object(feature.attributes))
            writer.appendRaw(",\"geometry\":")
            switch feature.geometry {
            case .point(let point)?:
                writer.appendRaw("{\"x\":")
                writer.appendDouble(point.x)
                writer.appendRaw(",\"y\":")
                writer.appendDouble(point.y)
                writer.appendRaw("}")
            case .polygon(let rings, _)?:
                writer.appendRaw("{\"rings\":[")
                for (r, ring) in rings.enumerated() {
                    if r > 0 { writer.appendRaw(",") }
                    writer.appendRaw("[")
                    for (c, corner) in ring.enumerated() {
                        if c > 0 { writer.appendRaw(",") }
                        writer.appendRaw("[")
                        writer.appendDouble(corner.x)
                        writer.appendRaw(",")
                        writer.appendDouble(corner.y)
                        writer.appendRaw("]")
                    }
                    writer.appendRaw("]")
                }
                writer.appendRaw("]}")
            case nil:
                writer.appendNull()
            }
            writer.appendRaw("}")
        }
        writer.appendRaw("]}")
        return writer.bytes
    }
}
