import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// Hand-written edge cases for JSONParser: grammar, escapes, errors and offsets.
@Suite(.bounded)
struct JSONParserTests {
    /// The error parse throws for `bytes` (nil when it parses), after checking validate throws the same.
    func parseError(_ bytes: [UInt8], maxDepth: Int = 512) -> JSONError? {
        let parsed = Result { () throws(JSONError) in try JSONParser.parse(bytes, maxDepth: maxDepth) }
        let validated = Result { () throws(JSONError) in try JSONParser.validate(bytes, maxDepth: maxDepth) }
        switch (parsed, validated) {
        case (.success, .success): return nil
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "parse and validate must throw the same error")
            return a
        default:
            Issue.record("parse and validate disagree: \(parsed) vs \(validated)")
            return nil
        }
    }

    func parseError(_ text: String, maxDepth: Int = 512) -> JSONError? {
        parseError(Array(text.utf8), maxDepth: maxDepth)
    }

    /// Every scalar kind parses to the matching JSONValue case, with whitespace around it.
    @Test func parsesScalarsAndContainers() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse(" \t\r\ntrue \n") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse("42") == .int(42))
        #expect(try JSONParser.parse("-1.5") == .double(-1.5))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse("[]") == .array([]))
        #expect(try JSONParser.parse("{}") == .object(JSONObject()))
        let value = try JSONParser.parse(#"{"a":[1,2.5,"x",null,true],"b":{"c":{}}}"#)
        #expect(value["a"] == .array([.int(1), .double(2.5), .string("x"), .null, .bool(true)]))
        #expect(value["a"]?[1]?.doubleValue == 2.5)
        #expect(value["a"]?[0]?.intValue == 1)
        #expect(value["a"]?[2]?.stringValue == "x")
        #expect(value["a"]?[3]?.isNull == true)
        #expect(value["b"]?["c"]?.objectValue == JSONObject())
        #expect(value["missing"] == nil)
        #expect(value.objectValue?.keys == ["a", "b"])
    }

    /// Every RFC 8259 escape decodes to its character.
    @Test func decodesEveryEscape() throws {
        #expect(try JSONParser.parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try JSONParser.parse(#""\u0041\u00e9\u00E9\u20AC\u0000\u001f\uFFFF""#) == .string("Aéé€\u{0}\u{1F}\u{FFFF}"))
        #expect(try JSONParser.parse(#""a\u0062c""#) == .string("abc"))
        // Raw non-ASCII passes through; DEL and U+2028 need no escaping.
        #expect(try JSONParser.parse("\"é中😀\u{7F}\u{2028}\"") == .string("é中😀\u{7F}\u{2028}"))
    }

    /// Surrogate-pair escapes combine into one scalar, in any hex case.
    @Test func decodesSurrogatePairs() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONParser.parse(#""\uD83D\uDE00x\uDBFF\uDFFF""#) == .string("😀x\u{10FFFF}"))
        #expect(try JSONParser.parse(#""\uD800\uDC00""#) == .string("\u{10000}"))
    }

    /// A lone or mismatched surrogate escape is an error (as with JSONSerialization), at the backslash.
    @Test func rejectsLoneSurrogates() {
        #expect(parseError(#""\ud800""#) == JSONError(offset: 1, message: "unpaired high surrogate escape (expected a \\uDC00-\\uDFFF escape to follow)"))
        #expect(parseError(#""ab\udc00""#) == JSONError(offset: 3, message: "unpaired low surrogate escape"))
        #expect(parseError(#""\ud800\u0041""#)?.offset == 1)
        #expect(parseError(#""\ud800\ud800""#)?.offset == 1)
        #expect(parseError(#""\ud800x""#)?.offset == 1)
        #expect(parseError(#""\ude00\ud83d""#)?.offset == 1)
    }

    /// Malformed escapes, raw control characters and unterminated strings are rejected at the exact byte.
    @Test func rejectsBadStrings() {
        #expect(parseError(#""\x""#) == JSONError(offset: 1, message: "invalid escape sequence in string"))
        #expect(parseError(#""\U0041""#)?.offset == 1)
        #expect(parseError(#""ab\u12xyz""#) == JSONError(offset: 3, message: "invalid \\u escape (expected 4 hex digits)"))
        #expect(parseError(#""ab\u12G4""#)?.offset == 3)
        #expect(parseError("\"ab\\u12") == JSONError(offset: 3, message: "unterminated \\u escape (expected 4 hex digits)", kind: .endedEarly))
        #expect(parseError("\"a\u{01}b\"") == JSONError(offset: 2, message: "unescaped control character U+0001 in string"))
        #expect(parseError("\"a\tb\"") == JSONError(offset: 2, message: "unescaped control character U+0009 in string"))
        #expect(parseError("\"0123456789abcdef\nxyz\"")?.offset == 17)   // found by the 8-byte scan
        #expect(parseError("\"abc") == JSONError(offset: 0, message: "unterminated string", kind: .endedEarly))
        #expect(parseError("[\"abc\\") == JSONError(offset: 1, message: "unterminated string", kind: .endedEarly))
        #expect(parseError("\"\\") == JSONError(offset: 0, message: "unterminated string", kind: .endedEarly))
    }

    /// Invalid UTF-8 (stray continuation, overlong, encoded surrogate, > U+10FFFF, truncated) is rejected at the lead byte.
    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [[0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
                                [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
                                [0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC2, 0x41]]
        for sequence in cases {
            let bytes = [0x22, 0x61] + sequence + [0x22]
            #expect(parseError(bytes) == JSONError(offset: 2, message: "invalid UTF-8 byte sequence in string"), "\(sequence)")
        }
        // Valid boundaries pass.
        for sequence: [UInt8] in [[0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
                                  [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF]] {
            #expect(parseError([0x22] + sequence + [0x22]) == nil, "\(sequence)")
        }
        // Outside strings any non-ASCII byte is simply not a value.
        #expect(parseError([0xC3, 0xA9]) == JSONError(offset: 0, message: "expected a JSON value"))
    }

    /// Integers are exact to 64 bits; beyond that they become doubles.
    @Test func integerBoundaries() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9223372036854775808.0))
        #expect(try JSONParser.parse("-9223372036854775809") == .double(-9223372036854775808.0))
        #expect(try JSONParser.parse("18446744073709551616") == .double(18446744073709551616.0))
        #expect(try JSONParser.parse("123456789012345678901234567890") == .double(1.2345678901234568e29))
        #expect(try JSONParser.parse("0") == .int(0))
        // "-0" has no fraction or exponent: an integer, and Int64 has no negative zero (JSONSerialization agrees).
        #expect(try JSONParser.parse("-0") == .int(0))
        #expect(try JSONParser.parse("1e2") == .double(100))
        #expect(try JSONParser.parse("1.0") == .double(1))
    }

    /// Doubles: zero forms, overflow to infinity, underflow to zero, hard rounding cases.
    @Test func doubleEdgeCases() throws {
        #expect(try JSONParser.parse("0e0") == .double(0))
        #expect(try JSONParser.parse("0E+5") == .double(0))
        #expect(try JSONParser.parse("-0.0").doubleValue?.sign == .minus)
        #expect(try JSONParser.parse("-0e10").doubleValue?.sign == .minus)
        #expect(try JSONParser.parse("1E400") == .double(.infinity))
        #expect(try JSONParser.parse("-1e400") == .double(-.infinity))
        #expect(try JSONParser.parse("1e-400") == .double(0))
        #expect(try JSONParser.parse("-1e-400").doubleValue?.sign == .minus)
        #expect(try JSONParser.parse("0.000000000000000000000000000001e30") == .double(1))
        #expect(try JSONParser.parse("1e99999999999999999999") == .double(.infinity))
        #expect(try JSONParser.parse("1e-99999999999999999999") == .double(0))
        // The largest subnormal, and the value that hung PHP/Java (rounds down to it).
        #expect(try JSONParser.parse("2.2250738585072011e-308").doubleValue?.bitPattern == 0x000F_FFFF_FFFF_FFFF)
        #expect(try JSONParser.parse("2.2250738585072012e-308").doubleValue?.bitPattern == 0x0010_0000_0000_0000)
        #expect(try JSONParser.parse("4.9406564584124654e-324").doubleValue?.bitPattern == 1)
        #expect(try JSONParser.parse("2.4703282292062327e-324") == .double(0))           // exactly half: ties to even
        #expect(try JSONParser.parse("2.4703282292062328e-324").doubleValue?.bitPattern == 1)
        #expect(try JSONParser.parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try JSONParser.parse("1.7976931348623159e308") == .double(.infinity))
        #expect(try JSONParser.parse("9007199254740993") == .int(9007199254740993))
        #expect(try JSONParser.parse("9007199254740993.0") == .double(9007199254740992))   // ties to even
        #expect(try JSONParser.parse("9007199254740993.0000000000000000001") == .double(9007199254740994))
        // 0.1 and its neighbours.
        let tenth = 0.1
        for d in [tenth.nextDown.nextDown, tenth.nextDown, tenth, tenth.nextUp, tenth.nextUp.nextUp] {
            #expect(try JSONParser.parse(d.description) == .double(d))
        }
        #expect(try JSONParser.parse("0.1000000000000000055511151231257827021181583404541015625") == .double(0.1))
    }

    /// The number grammar: no leading zeros, '+', bare '.', trailing '.', empty exponent.
    @Test func rejectsBadNumbers() {
        #expect(parseError("01") == JSONError(offset: 0, message: "leading zeros are not allowed in numbers"))
        #expect(parseError("-01") == JSONError(offset: 1, message: "leading zeros are not allowed in numbers"))
        #expect(parseError("[00]")?.offset == 1)
        #expect(parseError("+1") == JSONError(offset: 0, message: "expected a JSON value"))
        #expect(parseError(".5") == JSONError(offset: 0, message: "expected a JSON value"))
        #expect(parseError("1.") == JSONError(offset: 2, message: "unexpected end of input; expected a digit after the decimal point", kind: .endedEarly))
        #expect(parseError("1.e5") == JSONError(offset: 2, message: "expected a digit after the decimal point"))
        #expect(parseError("1e") == JSONError(offset: 2, message: "unexpected end of input; expected a digit in the exponent", kind: .endedEarly))
        #expect(parseError("1e+") == JSONError(offset: 3, message: "unexpected end of input; expected a digit in the exponent", kind: .endedEarly))
        #expect(parseError("[1E-]") == JSONError(offset: 4, message: "expected a digit in the exponent"))
        #expect(parseError("-") == JSONError(offset: 1, message: "unexpected end of input; expected a digit after '-'", kind: .endedEarly))
        #expect(parseError("-x") == JSONError(offset: 1, message: "expected a digit after '-'"))
        #expect(parseError("--1")?.offset == 1)
        #expect(parseError("0x10") == JSONError(offset: 1, message: "unexpected data after the JSON value"))
        #expect(parseError("1.5.2")?.offset == 3)
        #expect(parseError("NaN")?.offset == 0)
        #expect(parseError("Infinity")?.offset == 0)
        #expect(parseError("-Infinity")?.offset == 1)
    }

    /// Structural errors name what was expected, at the exact byte.
    @Test func structuralErrorsHaveExactOffsets() {
        #expect(parseError("") == JSONError(offset: 0, message: "unexpected end of input; expected a JSON value", kind: .endedEarly))
        #expect(parseError("  \n") == JSONError(offset: 3, message: "unexpected end of input; expected a JSON value", kind: .endedEarly))
        #expect(parseError("[1,2") == JSONError(offset: 4, message: "unexpected end of input; expected ',' or ']' after array element", kind: .endedEarly))
        #expect(parseError("[1 2]") == JSONError(offset: 3, message: "expected ',' or ']' after array element"))
        #expect(parseError(#"{"a" 1}"#) == JSONError(offset: 5, message: "expected ':' after object key"))
        #expect(parseError(#"{"a":1 "b":2}"#) == JSONError(offset: 7, message: "expected ',' or '}' after object member"))
        #expect(parseError("{1:2}") == JSONError(offset: 1, message: "expected '\"' to begin an object key"))
        #expect(parseError("[1,]") == JSONError(offset: 3, message: "expected a JSON value"))
        #expect(parseError("[,1]") == JSONError(offset: 1, message: "expected a JSON value"))
        #expect(parseError(#"{"a":}"#) == JSONError(offset: 5, message: "expected a JSON value"))
        #expect(parseError("tru") == JSONError(offset: 0, message: "invalid literal; expected 'true'"))
        #expect(parseError("[nul]") == JSONError(offset: 1, message: "invalid literal; expected 'null'"))
        #expect(parseError("fals") == JSONError(offset: 0, message: "invalid literal; expected 'false'"))
        #expect(parseError("falsy") == JSONError(offset: 0, message: "invalid literal; expected 'false'"))
        #expect(parseError("True")?.offset == 0)
        #expect(parseError("]") == JSONError(offset: 0, message: "expected a JSON value"))
        #expect(parseError("\u{0C}1") == JSONError(offset: 0, message: "expected a JSON value"))   // form feed is not JSON whitespace
        #expect(parseError([0x31, 0x00]) == JSONError(offset: 1, message: "unexpected data after the JSON value"))
    }

    /// Only JSON whitespace may follow the value.
    @Test func rejectsTrailingGarbage() {
        #expect(parseError("1 \t\r\n") == nil)
        #expect(parseError("1 2") == JSONError(offset: 2, message: "unexpected data after the JSON value"))
        #expect(parseError("{} {}") == JSONError(offset: 3, message: "unexpected data after the JSON value"))
        #expect(parseError("[]]") == JSONError(offset: 2, message: "unexpected data after the JSON value"))
        #expect(parseError("nullx") == JSONError(offset: 4, message: "unexpected data after the JSON value"))
        #expect(parseError("\"a\"\"b\"")?.offset == 3)
        #expect(parseError([0x31, 0xEF, 0xBB, 0xBF])?.offset == 1)
    }

    /// maxDepth levels of nesting are accepted; one more is rejected at the opening bracket.
    @Test func depthLimit() {
        let atLimit = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(parseError(atLimit) == nil)
        let beyond = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(parseError(beyond) == JSONError(offset: 512, message: "nesting depth exceeds the limit of 512"))
        let objects = String(repeating: #"{"k":"#, count: 512) + "1" + String(repeating: "}", count: 512)
        #expect(parseError(objects) == nil)
        let deeperObjects = String(repeating: #"{"k":"#, count: 513) + "1" + String(repeating: "}", count: 513)
        #expect(parseError(deeperObjects) == JSONError(offset: 512 * 5, message: "nesting depth exceeds the limit of 512"))
        #expect(parseError("[[[]]]", maxDepth: 3) == nil)
        #expect(parseError("[[[[]]]]", maxDepth: 3) == JSONError(offset: 3, message: "nesting depth exceeds the limit of 3"))
        #expect(parseError("[{}]", maxDepth: 1) == JSONError(offset: 1, message: "nesting depth exceeds the limit of 1"))
        #expect(parseError("[]", maxDepth: 0)?.offset == 0)
        #expect(parseError("7", maxDepth: 0) == nil)
        // Very deep input does not exhaust the stack: the readers are iterative.
        let huge = String(repeating: "[", count: 200_000)
        #expect(parseError(huge)?.offset == 512)
        let hugeBalanced = Array((huge + String(repeating: "]", count: 200_000)).utf8)
        #expect(throws: Never.self) { try JSONParser.validate(hugeBalanced, maxDepth: 1_000_000) }
        // (Parsing that deep would succeed too, but destroying a JSONValue nested
        // hundreds of thousands deep recurses in Swift's deinit; hence the modest default.)
        let deep = Array((String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)).utf8)
        #expect(throws: Never.self) { try JSONParser.parse(deep, maxDepth: 2000) }
    }

    /// A raised maxDepth beyond the inline 512-level stack still tracks array vs object correctly.
    @Test func deepMixedNestingBeyondInlineStack() throws {
        var text = ""
        for i in 0..<1500 { text += i % 3 == 0 ? #"{"k":"# : "[" }
        text += "0"
        for i in (0..<1500).reversed() { text += i % 3 == 0 ? "}" : "]" }
        #expect(parseError(text, maxDepth: 1500) == nil)
        #expect(parseError(text, maxDepth: 1499)?.message == "nesting depth exceeds the limit of 1499")
        // Mismatched closer deep inside is caught.
        let broken = text.replacingCharacters(at: text.count - 800, with: "}")
        #expect(parseError(broken, maxDepth: 1500) != nil)
    }

    /// Duplicate keys are kept in order; lookup returns the last (small and indexed large objects).
    @Test func duplicateKeysLastWins() throws {
        let small = try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(small.objectValue?.count == 3)
        #expect(small["a"] == .int(3))
        var members = (0..<20).map { #""k\#($0)":\#($0)"# }
        members.append(#""k3":"last""#)
        let large = try JSONParser.parse("{" + members.joined(separator: ",") + "}")
        #expect(large.objectValue?.count == 21)
        #expect(large["k3"] == .string("last"))
        #expect(large["k19"] == .int(19))
        #expect(large["nope"] == nil)
        var built = JSONObject()
        for i in 0..<20 { built.append(key: "x", value: .int(Int64(i))) }
        #expect(built["x"] == .int(19))
    }

    /// The String, [UInt8] and raw-buffer entry points agree.
    @Test func entryPointsAgree() throws {
        let text = #"{"é":[1,"😀"]}"#
        let bytes = Array(text.utf8)
        let fromBuffer = try bytes.withUnsafeBytes { buffer throws(JSONError) in try JSONParser.parse(buffer) }
        #expect(try JSONParser.parse(text) == fromBuffer)
        #expect(try JSONParser.parse(bytes) == fromBuffer)
        #expect(throws: Never.self) { try JSONParser.validate(bytes) }
    }

    /// JSONError describes itself with offset and message.
    @Test func errorDescription() {
        #expect(JSONError(offset: 123, message: "expected ',' or '}' after object member").description
            == "invalid JSON at byte 123: expected ',' or '}' after object member")
    }
}

private extension String {
    func replacingCharacters(at offset: Int, with replacement: Character) -> String {
        var characters = Array(self)
        characters[offset] = replacement
        return String(characters)
    }
}
