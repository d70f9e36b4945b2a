import Foundation
import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// JSONWriter: escaping, number forms, round-trips through the parser.
@Suite(.bounded)
struct JSONWriterTests {
    func written(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(capacity: 16)
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Strings are quoted and escaped per RFC 8259: quote, backslash, short escapes, \u00XX for other controls.
    @Test func escapesStrings() {
        #expect(written { $0.appendString("a\"b\\c/d") } == #""a\"b\\c/d""#)
        #expect(written { $0.appendString("\u{08}\u{0C}\n\r\t") } == #""\b\f\n\r\t""#)
        #expect(written { $0.appendString("\u{0}\u{1}\u{1F}\u{7F}") } == "\"\\u0000\\u0001\\u001f\u{7F}\"")
        #expect(written { $0.appendString("é中😀\u{2028}") } == "\"é中😀\u{2028}\"")
        #expect(written { $0.appendString("") } == #""""#)
        #expect(written { $0.appendString("0123456789abcdef\"0123456789") } == #""0123456789abcdef\"0123456789""#)
    }

    /// Random strings (controls, quotes, backslashes, non-ASCII, emoji) round-trip through the parser.
    @Test func stringsRoundTrip() throws {
        var rng = SplitMix64(seed: 0x57)
        let pool: [Unicode.Scalar] = ["\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "a", "Z", " ", "é", "中", "😀", "\u{FEFF}", "\u{10FFFF}", "\u{301}"]
        for _ in 0..<3000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &rng) {
                if Int.random(in: 0...3, using: &rng) == 0 {
                    scalars.append(pool.randomElement(using: &rng)!)
                } else {
                    var value: UInt32
                    repeat { value = UInt32.random(in: 0...0x10FFFF, using: &rng) } while Unicode.Scalar(value) == nil
                    scalars.append(Unicode.Scalar(value)!)
                }
            }
            let s = String(scalars)
            var writer = JSONWriter()
            writer.appendString(s)
            let parsed = try JSONParser.parse(writer.bytes)
            #expect(parsed.stringValue.map { Array($0.utf8) } == Array(s.utf8))
        }
    }

    /// Integers print in decimal, including both extremes.
    @Test func writesIntegers() {
        #expect(written { $0.appendInt(0) } == "0")
        #expect(written { $0.appendInt(-7) } == "-7")
        #expect(written { $0.appendInt(.max) } == "9223372036854775807")
        #expect(written { $0.appendInt(.min) } == "-9223372036854775808")
        // Every digit count, at and around each power of ten, both signs, as Swift prints them.
        var boundaries: [Int64] = [Int64.max - 1]
        var power: Int64 = 1
        while true {
            boundaries += [power - 1, power, power + 1, power * 5 + 3]
            guard power <= Int64.max / 10 else { break }
            power *= 10
        }
        for value in boundaries {
            #expect(written { $0.appendInt(value) } == String(value))
            #expect(written { $0.appendInt(-value) } == String(-value))
        }
        // Many in a row land back to back in one buffer.
        let values: [Int64] = (0..<500).map { Int64($0) * 7_919 - 1_000_000 }
        #expect(written { writer in for value in values { writer.appendInt(value); writer.appendRaw(",") } }
                == values.map { String($0) + "," }.joined())
    }

    /// Doubles: integral values keep ".0", non-finite values become null, exponent forms are valid JSON.
    @Test func writesDoubles() throws {
        #expect(written { $0.appendDouble(5) } == "5.0")
        #expect(written { $0.appendDouble(-0.0) } == "-0.0")
        #expect(written { $0.appendDouble(0.1) } == "0.1")
        #expect(written { $0.appendDouble(1e-5) } == "1e-05")
        #expect(written { $0.appendDouble(1e16) } == "1e+16")
        #expect(written { $0.appendDouble(.greatestFiniteMagnitude) } == "1.7976931348623157e+308")
        #expect(written { $0.appendDouble(.leastNonzeroMagnitude) } == "5e-324")
        #expect(written { $0.appendDouble(.infinity) } == "null")
        #expect(written { $0.appendDouble(-.infinity) } == "null")
        #expect(written { $0.appendDouble(.nan) } == "null")
        #expect(try JSONParser.parse(written { $0.appendDouble(5) }) == .double(5))
    }

    /// Random finite doubles round-trip bit-exactly and use the fewest significant digits that do.
    @Test func doublesRoundTripInShortestForm() throws {
        var rng = SplitMix64(seed: 0x5407)
        var checked = 0
        while checked < 20_000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            checked += 1
            var writer = JSONWriter()
            writer.appendDouble(d)
            let text = String(decoding: writer.bytes, as: UTF8.self)
            #expect(try JSONParser.parse(writer.bytes).doubleValue?.bitPattern == d.bitPattern, "\(text)")
            // Shortest: neither neighbouring decimal with one digit fewer parses back to d.
            let (digits, exponent) = JSONWriterTests.decimalDigits(text)
            if digits.count >= 2 {
                let shorter = String(digits.dropLast())
                let truncated = Double("\(shorter)e\(exponent + 1)")!
                let roundedUp = Double("\(UInt64(shorter)! + 1)e\(exponent + 1)")!
                let sign: Double = d.sign == .minus ? -1 : 1
                #expect(sign * truncated != d && sign * roundedUp != d, "\(text) is not the shortest form")
            }
        }
    }

    /// Significant digits (no leading/trailing zeros) and the power of ten of the last one.
    static func decimalDigits(_ text: String) -> (digits: String, exponent: Int) {
        var mantissa = text.hasPrefix("-") ? String(text.dropFirst()) : text
        var exponent = 0
        if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(mantissa[mantissa.index(after: e)...])!
            mantissa = String(mantissa[..<e])
        }
        var digits = mantissa
        if let dot = mantissa.firstIndex(of: ".") {
            exponent -= mantissa.distance(from: dot, to: mantissa.endIndex) - 1
            digits.remove(at: digits.firstIndex(of: ".")!)
        }
        while digits.hasPrefix("0") && digits.count > 1 { digits.removeFirst() }
        while digits.hasSuffix("0") && digits.count > 1 {
            digits.removeLast()
            exponent += 1
        }
        return (digits, exponent)
    }

    /// Whole JSONValues written and re-parsed are equal (generated documents).
    @Test func valuesRoundTrip() throws {
        var generator = JSONDocumentGenerator(seed: 0xAB)
        for _ in 0..<2000 {
            let value = try JSONParser.parse(generator.document())
            var writer = JSONWriter()
            writer.append(value)
            #expect(try JSONParser.parse(writer.bytes) == value)
        }
    }

    /// Attribute values: dates become epoch-millisecond numbers.
    @Test func writesAttributeValues() {
        #expect(written { $0.append(AttributeValue.date(milliseconds: 1_700_000_000_123)) } == "1700000000123")
        #expect(written { $0.append(AttributeValue.null) } == "null")
        #expect(written { $0.append(AttributeValue.bool(false)) } == "false")
        #expect(written { $0.append(AttributeValue.string("x")) } == #""x""#)
        #expect(written { $0.append(AttributeValue.double(2.5)) } == "2.5")
        #expect(written { $0.append(AttributeValue.int(-3)) } == "-3")
    }

    /// removeAll keeps the buffer's capacity; raw appends are verbatim.
    @Test func reuseKeepsCapacity() {
        var writer = JSONWriter(capacity: 1024)
        writer.appendRaw("[")
        writer.appendBool(true)
        writer.appendRaw(ASCII.comma)
        writer.appendNull()
        writer.appendRaw("]")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[true,null]")
        let capacity = writer.capacity
        #expect(capacity >= 1024)
        writer.removeAll()
        #expect(writer.bytes.isEmpty)
        #expect(writer.count == 0)
        #expect(writer.capacity == capacity)
    }

    /// A feature written by appendFeature decodes back to the same observation.
    @Test func featureRoundTrip() throws {
        let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "when", type: .date),
                                     Field(name: "speed", type: .double), Field(name: "n", type: .integer), Field(name: "ok", type: .other("boolean"))])
        let observation = Observation(geometry: Point(x: -122.5, y: 47.25, z: 10, m: 0.5, wkid: 4326),
                                      attributes: [.string("a\"b"), .date(milliseconds: -5), .double(1.5), .int(7), .bool(true)],
                                      receivedAt: 9)
        var writer = JSONWriter()
        writer.appendFeature(observation, fields: schema.fields)
        var decoder = EsriFeatureDecoder(schema: schema)
        var output: [StreamMessage] = []
        try decoder.decode(writer.bytes, receivedAt: 9, into: &output)
        #expect(output == [.observation(observation)])

        let bare = Observation(geometry: nil, attributes: [.string("x")], receivedAt: 1)
        writer.removeAll()
        writer.appendFeature(bare, fields: schema.fields)
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"{"geometry":null,"attributes":{"id":"x","when":null,"speed":null,"n":null,"ok":null}}"#)
    }

    /// Short decimals (coordinates, speeds) print exactly as `description`,
    /// through the writer's fast path, for many values and signs.
    @Test func shortDecimalsMatchDescription() {
        var generator = SystemRandomNumberGenerator()
        var writer = JSONWriter(capacity: 64)
        for _ in 0..<50_000 {
            let digits = Int.random(in: 0...6, using: &generator)
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            let mantissa = Double(Int64.random(in: -999_999_999_999...999_999_999_999, using: &generator) % Int64(1e9 * scale))
            let value = mantissa / scale
            writer.removeAll()
            writer.appendDouble(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == value.description, "\(value)")
        }
        for value in [0.0, -0.0, 0.001, -0.001, 0.1, 5.0, -49.6, 125.5, 999_999_999.5, 1e9, 0.000999] {
            writer.removeAll()
            writer.appendDouble(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == value.description, "\(value)")
        }
    }
}
