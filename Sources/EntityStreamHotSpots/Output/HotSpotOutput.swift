import EntityStreamCore
import EntityStreamProjection
import EntityStreamModel

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
/// The engine's coordinates are in the processing reference
/// (``HotSpotPointReading/processingWKID``); the features are written in
/// the output reference asked for (`outSR`, ArcGIS's `env:outSR`), through
/// PROJ: a point, or a fishnet cell's corners in one batch. A feature whose
/// geometry PROJ cannot bring into the output reference has none.
/// A value; building a feature is pure.
public struct HotSpotOutput: Sendable {
    public let result: HotSpotResult
    /// The value field's output name: the count field, else the caller's field.
    public let valueFieldName: String
    /// The spatial reference of the written geometries.
    public let wkid: Int?
    private let sourceID: @Sendable (Int32) -> Int64
    /// The engine's reference and the output's, when they differ.
    private let conversion: (source: SpatialReference, target: SpatialReference)?

    /// - Parameters:
    ///   - valueField: the name of the analysed field of weighted input (ignored for counts).
    ///   - sourceID: the source id of a record number.
    ///   - wkid: the spatial reference of the result's coordinates (the processing reference).
    ///   - outSR: write in this spatial reference instead (nil: `wkid`).
    /// - Throws: ``ProjectionError`` when PROJ does not know `outSR` or cannot
    ///   transform into it.
    public init(result: HotSpotResult, valueField: String?, sourceID: @escaping @Sendable (Int32) -> Int64, wkid: Int?,
                outSR: Int? = nil) throws(ProjectionError) {
        self.result = result
        valueFieldName = result.valueField ?? valueField ?? "VALUE"
        self.sourceID = sourceID
        if let target = SpatialReference(code: outSR), let source = SpatialReference(code: wkid), source != target {
            try CoordinateOperations.check(from: source, to: target)
            conversion = (source, target)
            self.wkid = target.code
        } else {
            conversion = nil
            self.wkid = SpatialReference(code: outSR)?.code ?? wkid
        }
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

    /// The feature's point (a fishnet cell's centre) in the output spatial
    /// reference; nil when PROJ cannot bring it there.
    public func point(_ index: Int) -> Point? {
        let feature = result.features[index]
        let point = Point(x: feature.x, y: feature.y, wkid: conversion?.source.code ?? wkid)
        guard let conversion else { return point }
        return try? point.converted(to: conversion.target)
    }

    private func geometry(of feature: HotSpotFeature) -> AnalysisGeometry? {
        let geometry: AnalysisGeometry
        switch result.geometry(of: feature) {
        case .point(let x, let y):
            geometry = .point(Point(x: x, y: y, wkid: conversion?.source.code ?? wkid))
        case .polygon(let ring):
            geometry = .polygon(rings: [ring.map { AnalysisGeometry.Coordinate(x: $0[0], y: $0[1]) }], wkid: conversion?.source.code ?? wkid)
        }
        guard let conversion else { return geometry }
        return try? geometry.converted(to: conversion.target)
    }

    /// The whole result as an Esri JSON feature set, `{"geometryType",
    /// "spatialReference", "fields", "features", "exceededTransferLimit":false}`
    /// (the value of a `GPFeatureRecordSetLayer` result), written feature by feature.
    public func featureSet() -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + count * 200)
        writer.appendRaw("{\"geometryType\":")
        writer.appendString(geometryType)
        if let wkid {
            writer.appendRaw(",\"spatialReference\":")
            writer.appendSpatialReference(code: wkid)
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
