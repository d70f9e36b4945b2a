import EntityStreamModel
import EntityStreamCore
extension FeatureQuery {
    /// `resultType`: which record limit pages a query (ArcGIS's
    /// `maxRecordCount`, `standardMaxRecordCount` or `tileMaxRecordCount`).
    public enum ResultType: String, Sendable, Hashable, CaseIterable {
        case none, standard, tile
    }

    /// `units` of a `distance`: the `esriSRUnit_…` names ArcGIS documents,
    /// each with its length in metres.
    public enum DistanceUnit: String, Sendable, Hashable, CaseIterable {
        case meter = "esriSRUnit_Meter"
        case kilometer = "esriSRUnit_Kilometer"
        case foot = "esriSRUnit_Foot"
        case internationalFoot = "esriSRUnit_InternationalFoot"
        case usFoot = "esriSRUnit_SurveyFoot"
        case statuteMile = "esriSRUnit_StatuteMile"
        case nauticalMile = "esriSRUnit_NauticalMile"
        case usNauticalMile = "esriSRUnit_USNauticalMile"

        /// Metres per unit (`esriSRUnit_Foot` is the international foot, as in ArcGIS).
        public var metres: Double {
            switch self {
            case .meter: return 1
            case .kilometer: return 1000
            case .foot, .internationalFoot: return 0.3048
            case .usFoot: return 1200.0 / 3937.0
            case .statuteMile: return 1609.344
            case .nauticalMile: return 1852
            case .usNauticalMile: return 1853.248
            }
        }

        /// Reads a `units` value: an `esriSRUnit_…` name (ASCII case-insensitive)
        /// or its numeric code (9001 metre, 9036 kilometre, 9002 foot, 9003 US
        /// survey foot, 9093 statute mile, 9030 nautical mile, 109012 US nautical mile).
        public init?(parameter text: String) {
            let folded = text.lowercased()
            if let unit = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) {
                self = unit
                return
            }
            switch text {
            case "9001": self = .meter
            case "9036": self = .kilometer
            case "9002": self = .foot
            case "9003": self = .usFoot
            case "9093": self = .statuteMile
            case "9030": self = .nauticalMile
            case "109012": self = .usNauticalMile
            default: return nil
            }
        }
    }
}

/// `quantizationParameters`: ArcGIS's integer coordinate grid. Output
/// coordinates become `round((x − originX) / tolerance)` and
/// `round((originY − y) / tolerance)` (`upperLeft`, the default) or
/// `round((y − originY) / tolerance)` (`bottomLeft`), where the origin is
/// the extent's upper-left or lower-left corner, and the answer carries the
/// `transform` that undoes it. A plain value.
public struct QuantizationParameters: Sendable, Hashable {
    /// `mode`: `view` or `edit` (the same for points).
    public enum Mode: String, Sendable, Hashable { case view, edit }
    /// `originPosition`.
    public enum Origin: String, Sendable, Hashable { case upperLeft, bottomLeft }

    public var mode: Mode
    public var origin: Origin
    /// Grid size in output units (> 0).
    public var tolerance: Double
    /// The grid's extent (in the output spatial reference).
    public var extent: Envelope

    public init(mode: Mode = .view, origin: Origin = .upperLeft, tolerance: Double, extent: Envelope) {
        self.mode = mode
        self.origin = origin
        self.tolerance = tolerance
        self.extent = extent
    }

    /// The grid's origin corner.
    public var translate: (x: Double, y: Double) {
        (extent.xmin, origin == .upperLeft ? extent.ymax : extent.ymin)
    }

    /// `point` on the grid.
    public func quantize(_ point: Point) -> (x: Int64, y: Int64) {
        let (originX, originY) = translate
        let dx = ((point.x - originX) / tolerance).rounded()
        let dy = ((origin == .upperLeft ? originY - point.y : point.y - originY) / tolerance).rounded()
        return (Self.clamp(dx), Self.clamp(dy))
    }

    private static func clamp(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        return Int64(max(-9.0e15, min(9.0e15, value)))
    }

    /// Reads the parameter's JSON (`{"mode":"view","originPosition":"upperLeft","tolerance":1.5,"extent":{…}}`).
    /// - Throws: ``FeatureQueryError`` for `quantizationParameters` naming what is wrong.
    public init(parameter text: String) throws(FeatureQueryError) {
        guard let value = try? JSONParser.parse(text), value.objectValue != nil else {
            throw .quantizationNotObject
        }
        var mode = Mode.view
        if let given = value["mode"]?.stringValue {
            guard let parsed = Mode(rawValue: given) else { throw .quantizationMode(given) }
            mode = parsed
        }
        var origin = Origin.upperLeft
        if let given = value["originPosition"]?.stringValue {
            guard let parsed = Origin(rawValue: given) else { throw .quantizationOrigin(given) }
            origin = parsed
        }
        guard let extentValue = value["extent"] else { throw .quantizationWithoutExtent }
        let extent: Envelope
        do throws(FilterError) { extent = try StreamFilter.parseEnvelope(json: extentValue) } catch { throw .quantizationExtent(error) }
        let tolerance = value["tolerance"]?.doubleValue ?? 1
        guard tolerance.isFinite, tolerance > 0 else { throw .quantizationTolerance }
        self.init(mode: mode, origin: origin, tolerance: tolerance, extent: extent)
    }

    /// The parameter's JSON text.
    public var parameter: String {
        var box = JSONObject([("xmin", .double(extent.xmin)), ("ymin", .double(extent.ymin)), ("xmax", .double(extent.xmax)), ("ymax", .double(extent.ymax))])
        if let wkid = extent.wkid { box.append(key: "spatialReference", value: .object(JSONObject([("wkid", .int(Int64(wkid)))]))) }
        var writer = JSONWriter(capacity: 128)
        writer.append(.object(JSONObject([("mode", .string(mode.rawValue)), ("originPosition", .string(origin.rawValue)),
                                          ("tolerance", .double(tolerance)), ("extent", .object(box))])))
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
