import Foundation
import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// Correct rounding of the number reader, checked over many random values.
@Suite(.bounded)
struct JSONNumberParsingTests {
    /// Random finite doubles (random bit patterns) printed with `description` parse back bit-exactly.
    @Test func shortestDescriptionsRoundTrip() throws {
        var rng = SplitMix64(seed: 0xD0B1E)
        var checked = 0
        while checked < 20_000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            checked += 1
            let parsed = try JSONParser.parse(d.description).doubleValue
            #expect(parsed?.bitPattern == d.bitPattern, "\(d.description)")
        }
    }

    /// Random finite doubles printed with 17 significant digits (%.17g) parse back bit-exactly.
    @Test func seventeenDigitFormsRoundTrip() throws {
        var rng = SplitMix64(seed: 0x17D1)
        var checked = 0
        while checked < 20_000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            checked += 1
            var text = String(format: "%.17g", d)
            if !text.contains(".") && !text.contains("e") { text += ".0" }   // keep it a double token
            let parsed = try JSONParser.parse(text).doubleValue
            #expect(parsed?.bitPattern == d.bitPattern, "\(text)")
        }
    }

    /// Random decimal strings (1–30 digits, exponents across the whole range, incl. the fast path's) round exactly like strtod.
    @Test func randomDecimalsMatchCorrectlyRoundedConversion() throws {
        var rng = SplitMix64(seed: 0xDEC1)
        for _ in 0..<30_000 {
            let digitCount = Int.random(in: 1...30, using: &rng)
            var digits = String(Int.random(in: 1...9, using: &rng))
            for _ in 1..<digitCount { digits += String(Int.random(in: 0...9, using: &rng)) }
            let pointPosition = Int.random(in: 1...digitCount, using: &rng)
            var text = String(digits.prefix(pointPosition))
            if pointPosition < digitCount { text += "." + digits.dropFirst(pointPosition) }
            let exponent = Bool.random(using: &rng) ? Int.random(in: -25...25, using: &rng) : Int.random(in: -340...310, using: &rng)
            text += "e\(exponent)"
            if Bool.random(using: &rng) { text = "-" + text }
            guard let expected = Double(text) else { continue }   // the C library's correctly rounded strtod
            let parsed = try JSONParser.parse(text).doubleValue
            #expect(parsed?.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    /// Exact halfway cases between adjacent doubles round to even.
    @Test func halfwayCasesRoundToEven() throws {
        // 2^53 + 1 is halfway between 2^53 and 2^53 + 2.
        #expect(try JSONParser.parse("9007199254740993e0") == .double(9007199254740992))
        #expect(try JSONParser.parse("9007199254740995e0") == .double(9007199254740996))
        // 1 + 2^-53 is halfway between 1 and its successor.
        #expect(try JSONParser.parse("1.00000000000000011102230246251565404236316680908203125") == .double(1))
        #expect(try JSONParser.parse("1.00000000000000011102230246251565404236316680908203126") == .double(1.0.nextUp))
    }

    /// Integers of every magnitude up to 19 digits parse exactly as Int64.
    @Test func randomIntegersAreExact() throws {
        var rng = SplitMix64(seed: 0x1A7)
        for _ in 0..<20_000 {
            let i = Int64(bitPattern: rng.next()) >> Int64.random(in: 0...63, using: &rng)
            #expect(try JSONParser.parse(String(i)) == .int(i))
        }
    }
}
