import EntityStreamCore
import EntityStreamModel
import EntityStreamFiles

/// A ranked match as an ordered query's external sort spills it: its order
/// keys, object id and feature, each value exact (doubles by their bits).
extension RankedFeature: Spillable {
    var residentBytes: Int {
        // The struct and arrays' headers, each value's box, and text longer than a small string.
        var bytes = 96 + keys.count * 40
        for key in keys { if case .string(let text) = key { bytes += Self.heapBytes(text) } }
        bytes += feature.dateAttributes.reduce(0) { $0 + 16 + Self.heapBytes($1) }
        if case .polygon(let rings, _) = feature.geometry { bytes += rings.reduce(0) { $0 + 32 + $1.count * 16 } }
        return bytes + Self.residentBytes(of: feature.attributes)
    }

    func spill(into writer: inout SpillWriter) {
        writer.int(Int64(keys.count))
        for key in keys { Self.spill(key, into: &writer) }
        writer.int(objectID)
        switch feature.geometry {
        case nil:
            writer.byte(0)
        case .point(let point):
            writer.byte(1)
            writer.double(point.x)
            writer.double(point.y)
            writer.double(point.z ?? .nan)
            writer.double(point.m ?? .nan)
            writer.int(Int64(point.wkid ?? 0))
        case .polygon(let rings, let wkid):
            writer.byte(2)
            writer.int(Int64(wkid ?? 0))
            writer.int(Int64(rings.count))
            for ring in rings {
                writer.int(Int64(ring.count))
                for corner in ring {
                    writer.double(corner.x)
                    writer.double(corner.y)
                }
            }
        }
        Self.spill(.object(feature.attributes), into: &writer)
        writer.int(Int64(feature.dateAttributes.count))
        for name in feature.dateAttributes { writer.string(name) }
    }

    static func unspill(from reader: inout SpillReader) throws(ExternalSortError) -> RankedFeature {
        let keyCount = try count(&reader)
        var keys: [AttributeValue] = []
        for _ in 0..<keyCount { keys.append(try attribute(&reader)) }
        let objectID = try reader.int()
        let geometry: AnalysisGeometry?
        switch try reader.byte() {
        case 0: geometry = nil
        case 1:
            let x = try reader.double(), y = try reader.double(), z = try reader.double(), m = try reader.double()
            let wkid = try reader.int()
            geometry = .point(Point(x: x, y: y, z: z.isNaN ? nil : z, m: m.isNaN ? nil : m, wkid: wkid == 0 ? nil : Int(wkid)))
        case 2:
            let wkid = try reader.int()
            var rings: [[AnalysisGeometry.Coordinate]] = []
            for _ in 0..<(try count(&reader)) {
                var ring: [AnalysisGeometry.Coordinate] = []
                for _ in 0..<(try count(&reader)) { ring.append(AnalysisGeometry.Coordinate(x: try reader.double(), y: try reader.double())) }
                rings.append(ring)
            }
            geometry = .polygon(rings: rings, wkid: wkid == 0 ? nil : Int(wkid))
        case let tag: throw .corrupt("geometry tag \(tag)")
        }
        guard case .object(let attributes) = try json(&reader) else { throw .corrupt("attributes that are not an object") }
        var dates: [String] = []
        for _ in 0..<(try count(&reader)) { dates.append(try reader.string()) }
        return RankedFeature(keys: keys, objectID: objectID,
                             feature: AnalysisFeature(geometry: geometry, attributes: attributes, dateAttributes: dates))
    }

    // MARK: Values

    private static func heapBytes(_ text: String) -> Int { text.utf8.count > 15 ? 32 + text.utf8.count : 0 }

    private static func residentBytes(of object: JSONObject) -> Int {
        object.members.reduce(16) { $0 + 56 + heapBytes($1.key) + residentBytes(of: $1.value) }
    }

    private static func residentBytes(of value: JSONValue) -> Int {
        switch value {
        case .string(let text): return heapBytes(text)
        case .array(let elements): return elements.reduce(32) { $0 + 40 + residentBytes(of: $1) }
        case .object(let object): return residentBytes(of: object)
        case .null, .bool, .int, .double: return 0
        }
    }

    private static func count(_ reader: inout SpillReader) throws(ExternalSortError) -> Int {
        let count = try reader.int()
        guard count >= 0, count <= Int64(Int32.max) else { throw .corrupt("a count of \(count)") }
        return Int(count)
    }

    /// A value as the JSON value of the same case (tag 6 for a date, which JSON has not).
    private static func spill(_ value: AttributeValue, into writer: inout SpillWriter) {
        let json: JSONValue
        switch value {
        case .date(let milliseconds):
            writer.byte(6)
            writer.int(milliseconds)
            return
        case .null: json = .null
        case .bool(let flag): json = .bool(flag)
        case .int(let number): json = .int(number)
        case .double(let number): json = .double(number)
        case .string(let text): json = .string(text)
        }
        spill(json, into: &writer)
    }

    private static func attribute(_ reader: inout SpillReader) throws(ExternalSortError) -> AttributeValue {
        let tag = try reader.byte()
        if tag == 6 { return .date(milliseconds: try reader.int()) }
        switch try json(tag: tag, &reader) {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .array, .object: throw .corrupt("an order key that is not a value")
        }
    }

    private static func spill(_ value: JSONValue, into writer: inout SpillWriter) {
        switch value {
        case .null: writer.byte(0)
        case .bool(let flag): writer.byte(flag ? 2 : 1)
        case .int(let number): writer.byte(3); writer.int(number)
        case .double(let number): writer.byte(4); writer.double(number)
        case .string(let text): writer.byte(5); writer.string(text)
        case .array(let elements):
            writer.byte(7)
            writer.int(Int64(elements.count))
            for element in elements { spill(element, into: &writer) }
        case .object(let object):
            writer.byte(8)
            writer.int(Int64(object.members.count))
            for member in object.members {
                writer.string(member.key)
                spill(member.value, into: &writer)
            }
        }
    }

    private static func json(_ reader: inout SpillReader) throws(ExternalSortError) -> JSONValue {
        try json(tag: try reader.byte(), &reader)
    }

    private static func json(tag: UInt8, _ reader: inout SpillReader) throws(ExternalSortError) -> JSONValue {
        switch tag {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(try reader.int())
        case 4: return .double(try reader.double())
        case 5: return .string(try reader.string())
        case 7:
            var elements: [JSONValue] = []
            for _ in 0..<(try count(&reader)) { elements.append(try json(&reader)) }
            return .array(elements)
        case 8:
            var members: [JSONObject.Member] = []
            for _ in 0..<(try count(&reader)) { members.append(JSONObject.Member(key: try reader.string(), value: try json(&reader))) }
            return .object(JSONObject(members: members))
        case let tag: throw .corrupt("value tag \(tag)")
        }
    }
}
