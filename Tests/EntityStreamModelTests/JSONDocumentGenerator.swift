@testable import EntityStreamCore
@testable import EntityStreamModel

/// Generates random, valid JSON texts (as bytes) with varied formatting, string
/// escapes, Unicode and number spellings, plus invalid variants of them.
/// Deterministic for a given seed.
struct JSONDocumentGenerator {
    var rng: SplitMix64
    var maxDepth = 5

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < probability }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

    // MARK: Valid documents

    mutating func document() -> [UInt8] {
        var out: [UInt8] = []
        whitespace(&out)
        value(&out, depth: 0)
        whitespace(&out)
        return out
    }

    mutating func whitespace(_ out: inout [UInt8]) {
        guard chance(0.3) else { return }
        for _ in 0..<int(1...3) { out.append([0x20, 0x09, 0x0A, 0x0D][int(0...3)]) }
    }

    mutating func value(_ out: inout [UInt8], depth: Int) {
        let kind = depth >= maxDepth ? int(0...3) : int(0...5)
        switch kind {
        case 0: out += Array(["null", "true", "false"][int(0...2)].utf8)
        case 1, 2: number(&out)
        case 3: string(&out, forKey: false)
        case 4:
            out.append(0x5B)
            let count = int(0...5)
            for i in 0..<count {
                if i > 0 { out.append(0x2C) }
                whitespace(&out)
                value(&out, depth: depth + 1)
                whitespace(&out)
            }
            if count == 0 { whitespace(&out) }
            out.append(0x5D)
        default:
            out.append(0x7B)
            let count = int(0...5)
            for i in 0..<count {
                if i > 0 { out.append(0x2C) }
                whitespace(&out)
                string(&out, forKey: true)
                whitespace(&out)
                out.append(0x3A)
                whitespace(&out)
                value(&out, depth: depth + 1)
                whitespace(&out)
            }
            if count == 0 { whitespace(&out) }
            out.append(0x7D)
        }
    }

    mutating func number(_ out: inout [UInt8]) {
        var text: String
        switch int(0...9) {
        case 0: text = String(int(-1000...1000))
        case 1: text = String(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 2: text = ["0", "-0", "0.0", "-0.0", "0e0", "0E-0", "9223372036854775807", "-9223372036854775808",
                        "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e-400", "-1e-400",
                        "2.2250738585072011e-308", "4.9406564584124654e-324", "1.7976931348623157e308",
                        "0.1", "0.30000000000000004", "1e22", "1e23", "9007199254740993", "123456789012345678901234567890"][int(0...21)]
        case 3:
            // Random finite double, shortest form.
            var d: Double
            repeat { d = Double(bitPattern: rng.next()) } while !d.isFinite
            text = d.description
        case 4:
            var d: Double
            repeat { d = Double(bitPattern: rng.next()) } while !d.isFinite
            // A decimal significand with a decimal exponent kept well inside the Double range.
            text = String(d.significand) + "e" + String(d.exponent / 4)
        default:
            // Random digit strings with optional fraction and exponent.
            text = chance(0.3) ? "-" : ""
            text += chance(0.2) ? "0" : String(int(1...9)) + randomDigits(int(0...22))
            if chance(0.6) { text += "." + randomDigits(int(1...25)) }
            if chance(0.5) {
                text += chance(0.5) ? "e" : "E"
                text += ["", "+", "-"][int(0...2)]
                text += String(int(0...290))
            }
        }
        out += Array(text.utf8)
    }

    mutating func randomDigits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(int(0...9))) })
    }

    mutating func string(_ out: inout [UInt8], forKey: Bool) {
        out.append(0x22)
        let length = forKey ? int(0...6) : int(0...16)
        for _ in 0..<length {
            switch int(0...9) {
            case 0...3:
                // Printable ASCII except quote and backslash.
                var b: UInt8
                repeat { b = UInt8(int(0x20...0x7E)) } while b == 0x22 || b == 0x5C
                out.append(b)
            case 4:
                let escapes = ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]
                out += Array(escapes[int(0...escapes.count - 1)].utf8)
            case 5:
                // \u escape of a BMP non-surrogate scalar (keys: ASCII letters only).
                let scalar: Int = forKey ? int(0x61...0x7A) : [int(0...0x1F), int(0x20...0x7F), int(0x80...0xD7FF), int(0xE000...0xFFFF)][int(0...3)]
                let hex = String(scalar, radix: 16, uppercase: chance(0.5))
                out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            case 6:
                // Surrogate pair escape.
                let scalar = forKey ? 0x1F600 : int(0x10000...0x10FFFF)
                let v = scalar - 0x10000
                let high = String(0xD800 + (v >> 10), radix: 16, uppercase: chance(0.5))
                let low = String(0xDC00 + (v & 0x3FF), radix: 16, uppercase: chance(0.5))
                out += Array("\\u\(high)\\u\(low)".utf8)
            default:
                // Raw UTF-8 of a random scalar (keys: a fixed set of precomposed ones).
                let scalar: Unicode.Scalar
                if forKey {
                    scalar = ["é", "ü", "中", "😀", "ß"].map { $0.unicodeScalars.first! }[int(0...4)]
                } else {
                    var candidate: UInt32
                    repeat {
                        candidate = [UInt32(int(0x7F...0x7FF)), UInt32(int(0x800...0xFFFF)), UInt32(int(0x10000...0x10FFFF))][int(0...2)]
                    } while Unicode.Scalar(candidate) == nil
                    scalar = Unicode.Scalar(candidate)!
                }
                out += Array(String(Character(scalar)).utf8)
            }
        }
        out.append(0x22)
    }

    // MARK: Invalid variants

    /// A mutated copy of `document`; usually (not always) invalid.
    mutating func mutate(_ document: [UInt8]) -> [UInt8] {
        var bytes = document
        switch int(0...9) {
        case 0:
            // Truncate.
            guard bytes.count > 1 else { return [] }
            bytes.removeSubrange(int(0...bytes.count - 1)...)
        case 1:
            // Insert an interesting byte.
            let interesting: [UInt8] = [0x2C, 0x5D, 0x7D, 0x5B, 0x7B, 0x22, 0x5C, 0x3A, 0x30, 0x2D, 0x2E, 0x65, 0x2B, 0x20,
                                        0x00, 0x01, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF,
                                        0x0B, 0x0C, 0x78, 0x6E, 0x74]
            bytes.insert(interesting[int(0...interesting.count - 1)], at: int(0...bytes.count))
        case 2:
            guard !bytes.isEmpty else { return bytes }
            bytes.remove(at: int(0...bytes.count - 1))
        case 3:
            guard !bytes.isEmpty else { return bytes }
            bytes[int(0...bytes.count - 1)] = UInt8(int(0...255))
        case 4:
            // A bad (or surrogate) escape inside a string.
            let escapes = ["\\x", "\\u12", "\\u12G4", "\\uD800", "\\uDC00", "\\uD800\\u0041", "\\uDBFF\\uDBFF", "\\U0041", "\\",
                           "\\uD83D\\uDE00", "\\u0000", "\\'", "\\a", "\\0", "\\ud800x", "\\uDFFF"]
            insertIntoString(&bytes, Array(escapes[int(0...escapes.count - 1)].utf8), fallbackWrap: true)
        case 5:
            // A bad number as an array element.
            let numbers = ["01", "-01", "+1", ".5", "1.", "1.e5", "1e", "1e+", "-", "--1", "0x10", "1_000", "Infinity", "NaN",
                           "-Infinity", "1.5.2", "00", "-.5", "1ee5", "1e5.5", "0.", "-0.e1", "1E-", "٣", "1 2", "- 1", "1e400", "-1e999999"]
            bytes = Array("[".utf8) + Array(numbers[int(0...numbers.count - 1)].utf8) + Array("]".utf8)
        case 6:
            // A raw control character inside a string.
            insertIntoString(&bytes, [UInt8(int(0x00...0x1F))], fallbackWrap: true)
        case 7:
            // Invalid UTF-8 inside a string.
            let sequences: [[UInt8]] = [[0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
                                        [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
                                        [0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC2, 0x41], [0xEF, 0xBF, 0xBF]]
            insertIntoString(&bytes, sequences[int(0...sequences.count - 1)], fallbackWrap: true)
        case 8:
            // Deep nesting around the limit of 512.
            let depth = int(505...520)
            if chance(0.5) {
                bytes = Array(String(repeating: "[", count: depth).utf8) + Array(String(repeating: "]", count: depth).utf8)
            } else {
                bytes = Array(String(repeating: "{\"a\":", count: depth - 1).utf8) + Array("[]".utf8) + Array(String(repeating: "}", count: depth - 1).utf8)
            }
            if chance(0.3) { bytes.removeLast() }
        default:
            // Non-JSON whitespace or a trailing comma or garbage.
            let junk: [[UInt8]] = [[0x0C], [0x0B], [0xC2, 0xA0], [0x2C], [0x2C, 0x5D], [0x2C, 0x7D], [0x78], [0x2F, 0x2F], [0xEF, 0xBB, 0xBF]]
            bytes.insert(contentsOf: junk[int(0...junk.count - 1)], at: int(0...bytes.count))
        }
        return bytes
    }

    /// Inserts `payload` right after the opening quote of some string, or
    /// wraps it in a new string when there is none (and `fallbackWrap`).
    mutating func insertIntoString(_ bytes: inout [UInt8], _ payload: [UInt8], fallbackWrap: Bool) {
        var quotes: [Int] = []
        var inString = false
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x22 {
                if !inString { quotes.append(i + 1) }
                inString.toggle()
            } else if bytes[i] == 0x5C && inString {
                i += 1
            }
            i += 1
        }
        if let position = quotes.randomElement(using: &rng) {
            bytes.insert(contentsOf: payload, at: position)
        } else if fallbackWrap {
            bytes = [0x22] + payload + [0x22]
        }
    }
}
