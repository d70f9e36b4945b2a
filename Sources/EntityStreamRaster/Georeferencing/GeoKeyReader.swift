import CLibGeoTIFF
import Foundation
import EntityStreamProjection

/// Reads a GeoTIFF's GeoKeys with libgeotiff: the raster type
/// (`GTRasterTypeGeoKey`) and the CRS (``RasterCRS``).
///
/// CRS rules: `GTModelTypeGeoKey` 1 (projected) takes `ProjectedCSTypeGeoKey`,
/// 2 (geographic) takes `GeographicTypeGeoKey`; without a model type, the
/// projected key and then the geographic key are tried. A code of 32767
/// (user-defined) is normalised by libgeotiff (`GTIFGetDefn`,
/// `GTIFGetProj4Defn`) to a PROJ string. A geocentric model, no keys, or
/// user-defined keys libgeotiff cannot describe give ``RasterCRS/unknown(reason:)``.
/// A user-defined (or missing) code whose citation key (`PCSCitationGeoKey`,
/// `GTCitationGeoKey`, `GeogCitationGeoKey`) holds `ESRI PE String = WKT`,
/// as ArcGIS writes custom coordinate systems, is that ESRI WKT
/// (``RasterCRS/esriWKT(_:)``), which PROJ reads; it is preferred to
/// libgeotiff's normalisation, as GDAL prefers it.
/// Called once per open, on the opening thread.
enum GeoKeyReader {
    static let modelTypeKey: Int32 = 1024
    static let rasterTypeKey: Int32 = 1025
    static let geographicTypeKey: Int32 = 2048
    static let projectedCSTypeKey: Int32 = 3072
    static let userDefined: UInt16 = 32767

    struct Keys {
        var rasterType: RasterType
        var crs: RasterCRS
    }

    static func read(_ tiff: TIFFHandle) -> Keys {
        let messages = UnsafeMutablePointer<es_gtif_messages>.allocate(capacity: 1)
        defer { messages.deallocate() }
        guard let gtif = es_gtif_new(UnsafeMutableRawPointer(tiff.pointer), messages) else {
            let detail = String(cString: es_gtif_messages_first_error(messages))
            return Keys(rasterType: .pixelIsArea,
                        crs: .unknown(reason: "libgeotiff cannot read the GeoKey directory\(detail.isEmpty ? "" : ": \(detail)")"))
        }
        defer { GTIFFree(gtif) }
        func key(_ id: Int32) -> UInt16? {
            var value: UInt16 = 0
            return es_gtif_key_get_short(gtif, id, &value) == 1 ? value : nil
        }
        let rasterType = key(rasterTypeKey).flatMap(RasterType.init(rawValue:)) ?? .pixelIsArea
        let model = key(modelTypeKey)
        let projected = key(projectedCSTypeKey).flatMap { $0 == 0 ? nil : $0 }
        let geographic = key(geographicTypeKey).flatMap { $0 == 0 ? nil : $0 }
        let code: UInt16?
        switch model {
        case 1: code = projected
        case 2: code = geographic
        case 3: return Keys(rasterType: rasterType, crs: .unknown(reason: "a geocentric model (GTModelTypeGeoKey 3)"))
        case nil: code = projected ?? geographic
        case let other?: return Keys(rasterType: rasterType, crs: .unknown(reason: "GTModelTypeGeoKey \(other) is not a known model type"))
        }
        if let code, code != userDefined {
            return Keys(rasterType: rasterType, crs: .epsg(Int(code)))
        }
        if let wkt = esriPEString(gtif) {
            return Keys(rasterType: rasterType, crs: .esriWKT(wkt))
        }
        if model == nil && code == nil {
            var versions: (Int32, Int32, Int32) = (0, 0, 0)
            var keyCount: Int32 = 0
            withUnsafeMutablePointer(to: &versions) {
                $0.withMemoryRebound(to: Int32.self, capacity: 3) { GTIFDirectoryInfo(gtif, $0, &keyCount) }
            }
            return Keys(rasterType: rasterType, crs: .unknown(reason: keyCount == 0 ? "the file has no GeoKeys" : "the GeoKeys name no model type or CRS"))
        }
        return Keys(rasterType: rasterType, crs: userDefinedCRS(gtif))
    }

    static let citationKeys: [Int32] = [3073, 1026, 2049]   // PCSCitation, GTCitation, GeogCitation
    static let esriPEPrefix = "ESRI PE String = "

    /// The WKT of an `ESRI PE String = …` citation, when a citation key holds one.
    static func esriPEString(_ gtif: OpaquePointer) -> String? {
        let size = 1 << 16
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer { buffer.deallocate() }
        for key in citationKeys where es_gtif_key_get_ascii(gtif, key, buffer, Int32(size)) > 0 {
            let text = String(cString: buffer)
            guard let range = text.range(of: esriPEPrefix) else { continue }
            let wkt = text[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
            if !wkt.isEmpty { return wkt }
        }
        return nil
    }

    /// libgeotiff's normalisation of user-defined keys into a PROJ string,
    /// with a PROJ context of our own attached (network off, PROJ's messages
    /// kept off stderr) rather than the one libgeotiff would create.
    private static func userDefinedCRS(_ gtif: OpaquePointer) -> RasterCRS {
        guard let context = try? ProjectionContext() else { return .unknown(reason: "PROJ could not create a context") }
        defer { withExtendedLifetime(context) {} }
        GTIFAttachPROJContext(gtif, UnsafeMutableRawPointer(context.pointer))
        guard let definition = GTIFAllocDefn() else { return .unknown(reason: "out of memory") }
        defer { GTIFFreeDefn(definition) }
        guard GTIFGetDefn(gtif, definition) != 0 else {
            return .unknown(reason: "user-defined GeoKeys that libgeotiff cannot normalise")
        }
        guard let text = GTIFGetProj4Defn(definition) else {
            return .unknown(reason: "user-defined GeoKeys without a PROJ equivalent")
        }
        defer { GTIFFreeMemory(text) }
        let proj = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        guard proj.contains("+proj=") else { return .unknown(reason: "user-defined GeoKeys without a PROJ equivalent") }
        return .userDefined(proj: proj.contains("+type=crs") ? proj : proj + " +type=crs")
    }
}
