import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere

@Suite("Where LIKE: %, _, ESCAPE, case-sensitive, Unicode scalars", .bounded)
struct WhereLikeTests {
    typealias F = WhereFixture

    /// `vehiclename LIKE pattern [ESCAPE e]` on a row whose vehiclename is `value`.
    static func like(_ value: String, _ pattern: String, escape: String? = nil) throws -> SQLTruth {
        var text = "vehiclename LIKE '\(pattern.replacing("'", with: "''"))'"
        if let escape { text += " ESCAPE '\(escape)'" }
        return try F.evaluate(text, F.plow(["vehiclename": .string(value)]))
    }

    /// `%` matches any run (including none), `_` exactly one character, case-sensitively.
    @Test(arguments: [
        ("TRUCK 12", "TRUCK%", true), ("truck 12", "TRUCK%", false), ("TRUCK", "TRUCK%", true),
        ("TRUCK", "TRUCK_", false), ("TRUCK1", "TRUCK_", true), ("abc", "%", true), ("", "%", true),
        ("", "_", false), ("", "", true), ("a", "", false), ("abc", "abc", true), ("abc", "ABC", false),
        ("abc", "a%c", true), ("abbbc", "a%b%c", true), ("ac", "a%b%c", false), ("abc", "%b%", true),
        ("abc", "%c", true), ("abc", "%a", false), ("mississippi", "%iss%ppi", true), ("mississippi", "m%ss%i", true),
        ("mississippi", "m%ss%x", false), ("aaa", "%aa", true), ("ab", "a__", false), ("abcabd", "%abd", true),
        ("ab", "%_%_%", true), ("a", "%_%_%", false), ("abc", "%%%", true), ("abc", "_b_", true), ("abc", "___", true),
        ("abcd", "___", false), ("xyz", "%y", false), ("PLOW 7", "%OW _", true),
    ])
    func wildcards(value: String, pattern: String, expected: Bool) throws {
        #expect(try Self.like(value, pattern) == SQLTruth(expected))
        #expect(try F.evaluate("vehiclename NOT LIKE '\(pattern)'", F.plow(["vehiclename": .string(value)])) == SQLTruth(!expected))
    }

    /// Regex metacharacters (and backslash without ESCAPE) are ordinary characters.
    @Test(arguments: [
        ("a.c", "a.c", true), ("abc", "a.c", false), ("a+c", "a+c", true), ("aac", "a+c", false),
        ("a*c", "a*c", true), ("abc", "a*c", false), ("a[b]c", "a[b]c", true), ("b", "[abc]", false),
        ("(x)", "(x)", true), ("^$", "^$", true), ("x", "^x$", false), ("a\\b", "a\\b", true),
        ("a|b", "a|b", true), ("a", "a|b", false), ("a?", "a?", true), ("a{2}", "a{2}", true),
        ("x.y.z", "%.%.%", true), ("xyz", "%.%", false), ("a\\%", "a\\%", true), ("a\\x", "a\\%", true),
    ])
    func regexCharactersAreLiteral(value: String, pattern: String, expected: Bool) throws {
        #expect(try Self.like(value, pattern) == SQLTruth(expected))
    }

    /// `_` matches one Unicode scalar, including multi-byte UTF-8 and astral-plane characters.
    @Test(arguments: [
        ("é", "_", true), ("日本語", "___", true), ("日本語", "__", false), ("日本語", "日%", true),
        ("日本語", "%語", true), ("日本語", "_本_", true), ("naïve", "na_ve", true), ("😀x", "_x", true),
        ("x😀", "x_", true), ("x😀", "x__", false), ("e\u{301}", "_", false), ("e\u{301}", "__", true),
        ("Ünïcödé", "%cöd%", true), ("Ünïcödé", "_n_c_d_", true), ("ÄÖÜ", "%Ö%", true), ("äöü", "%Ö%", false),
        ("a日b", "a%b", true), ("日", "%日%", true),
    ])
    func nonASCII(value: String, pattern: String, expected: Bool) throws {
        #expect(try Self.like(value, pattern) == SQLTruth(expected))
    }

    /// ESCAPE makes the next `%`, `_` or escape character literal.
    @Test(arguments: [
        ("100%", "100\\%", "\\", true), ("1000", "100\\%", "\\", false), ("a_b", "a\\_b", "\\", true),
        ("axb", "a\\_b", "\\", false), ("a\\b", "a\\\\b", "\\", true), ("50%", "%!%", "!", true),
        ("50", "%!%", "!", false), ("a!b", "a!!b", "!", true), ("a%b%", "a!%%!%", "!", true),
        ("a%xyz%", "a!%%!%", "!", true), ("a%xyz", "a!%%!%", "!", false), ("_%", "#_#%", "#", true),
        ("é_", "_é_", "é", true), ("x_", "_é_", "é", true), ("xy", "_é_", "é", false),
    ])
    func escape(value: String, pattern: String, escape: String, expected: Bool) throws {
        #expect(try Self.like(value, pattern, escape: escape) == SQLTruth(expected))
    }

    /// A malformed use of the escape character is an error at that character.
    @Test(arguments: [
        ("vehiclename LIKE 'a\\b' ESCAPE '\\'", 20, "escape character '\\' must be followed by '%', '_' or itself, not 'b'"),
        ("vehiclename LIKE 'a\\' ESCAPE '\\'", 20, "escape character '\\' at the end of the LIKE pattern"),
        ("vehiclename LIKE 'it''s!x' ESCAPE '!'", 24, "escape character '!' must be followed by '%', '_' or itself, not 'x'"),
        ("vehiclename LIKE 'é!' ESCAPE '!'", 20, "escape character '!' at the end of the LIKE pattern"),
        ("vehiclename LIKE 'a' ESCAPE 'ab'", 29, "ESCAPE needs exactly one character, found 2"),
        ("vehiclename LIKE 'a' ESCAPE ''", 29, "ESCAPE needs exactly one character, found 0"),
        ("vehiclename LIKE 'a' ESCAPE 5", 29, "expected a string literal after ESCAPE, found '5'"),
        ("vehiclename LIKE 'a' ESCAPE", 28, "expected a string literal after ESCAPE, found end of clause"),
    ])
    func malformedEscape(text: String, position: Int, message: String) throws {
        let error = try #require(F.error(text))
        #expect(error.message == message)
        #expect(error.position == position)
    }

    /// LIKE matches the same strings as a straightforward reference matcher on random inputs.
    @Test func agreesWithReferenceMatcher() throws {
        let alphabet: [Unicode.Scalar] = ["a", "b", "é", "日", "%", "_"]
        var generator = SplitMix64(seed: 0x11CE)
        for _ in 0..<3000 {
            var pattern = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...6, using: &generator) { pattern.append(alphabet.randomElement(using: &generator)!) }
            var value = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...7, using: &generator) { value.append(alphabet[Int.random(in: 0...3, using: &generator)]) }
            let expected = Self.referenceMatch(Array(value), Array(pattern))
            let got = try Self.like(String(value), String(pattern))
            #expect(got == SQLTruth(expected), "'\(String(value))' LIKE '\(String(pattern))'")
        }
    }

    /// Naive recursive LIKE on scalars (no escape), for cross-checking.
    static func referenceMatch(_ s: [Unicode.Scalar], _ p: [Unicode.Scalar]) -> Bool {
        if p.isEmpty { return s.isEmpty }
        if p[0] == "%" {
            for k in 0...s.count where referenceMatch(Array(s[k...]), Array(p.dropFirst())) { return true }
            return false
        }
        guard let first = s.first else { return false }
        if p[0] == "_" || p[0] == first { return referenceMatch(Array(s.dropFirst()), Array(p.dropFirst())) }
        return false
    }

    /// LIKE also applies to expressions such as UPPER(field), and to string literals.
    @Test func likeOnExpressions() throws {
        #expect(try F.evaluate("UPPER(vehicletype) LIKE 'PL%'") == .true)
        #expect(try F.evaluate("LOWER(vehiclename) LIKE 'truck%'") == .true)
        #expect(try F.evaluate("'abc' LIKE 'a%'") == .true)
        #expect(try WhereClause("'abc' LIKE 'a%'", schema: F.schema).isTautology)
    }
}
