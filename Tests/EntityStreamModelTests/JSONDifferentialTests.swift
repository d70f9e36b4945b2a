import Foundation
import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// Differential tests: JSONParser against Foundation's JSONSerialization.
///
/// Known, deliberate disagreements, where Foundation on Linux departs from
/// RFC 8259 (each is recognised precisely and counted, never ignored wholesale):
/// - Trailing commas: JSONSerialization accepts `[1,]` and `{"a":1,}`. RFC 8259
///   §4/§5 grammar (`value *( value-separator value )`) forbids them. Recognised
///   as: our error is at a `]`/`}` whose previous non-whitespace byte is `,`;
///   the comma is then removed and the comparison repeated on the result.
/// - Byte-order mark: JSONSerialization skips a leading UTF-8 BOM. It is not in
///   the RFC 8259 grammar (§8.1 lets a parser ignore it, but does not require
///   it); we reject it. Recognised as input starting EF BB BF; the comparison is
///   repeated without it.
/// - NSDecimalNumber results: JSONSerialization returns many numbers as
///   NSDecimalNumber whose `doubleValue` is not correctly rounded; values are
///   compared against the correctly rounded conversion of Foundation's exact
///   decimal instead (see `jsonFoundationMismatch`).
/// - U+FEFF inside strings: Foundation drops a U+FEFF that begins a raw run of
///   characters inside a string; RFC 8259 §7 allows any scalar, so we keep it
///   (see `jsonFoundationStringMismatch`).
/// - Out-of-range numbers (e.g. `1e400`): JSONSerialization rejects them. RFC
///   8259 §6 lets implementations limit range; the grammar accepts them, and we
///   return ±infinity (IEEE overflow, like JavaScript and Python). Recognised
///   as: we accept, Foundation rejects, and our value contains a non-finite double.
@Suite(.bounded)
struct JSONDifferentialTests {
    enum Outcome: Equatable { case agreed, trailingCommaExcluded, bomExcluded, overflowExcluded }

    /// Compares one input; on disagreement records an issue and returns false.
    static func compare(_ bytes: [UInt8], excluded: inout [Outcome: Int]) -> Bool {
        var bytes = bytes
        var adjustments = 0
        while true {
            let ours = Result { () throws(JSONError) in try JSONParser.parse(bytes) }
            let theirs = jsonFoundationParse(bytes)
            // validate() must agree with parse() exactly, error included.
            let validation = Result { () throws(JSONError) in try JSONParser.validate(bytes) }
            switch (ours, validation) {
            case (.success, .success): break
            case (.failure(let a), .failure(let b)) where a == b: break
            default:
                Issue.record("validate and parse disagree on \(String(decoding: bytes, as: UTF8.self).debugDescription): \(ours) vs \(validation)")
                return false
            }
            switch (ours, theirs) {
            case (.success(let value), .some(let foundation)):
                if let problem = jsonFoundationMismatch(foundation, value) {
                    Issue.record("value mismatch for \(String(decoding: bytes, as: UTF8.self).debugDescription): \(problem)")
                    return false
                }
                return true
            case (.failure, .none):
                return true
            case (.failure(let error), .some):
                // Foundation accepted what we rejected: only the documented classes may explain it.
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]), adjustments < 50 {
                    excluded[.bomExcluded, default: 0] += 1
                    bytes.removeFirst(3)
                    adjustments += 1
                    continue
                }
                if let comma = trailingCommaBefore(error, in: bytes), adjustments < 50 {
                    excluded[.trailingCommaExcluded, default: 0] += 1
                    bytes.remove(at: comma)
                    adjustments += 1
                    continue
                }
                Issue.record("Foundation accepts, we reject \(String(decoding: bytes, as: UTF8.self).debugDescription): \(error)")
                return false
            case (.success(let value), .none):
                if containsNonFinite(value) {
                    excluded[.overflowExcluded, default: 0] += 1
                    return true
                }
                Issue.record("we accept, Foundation rejects \(String(decoding: bytes, as: UTF8.self).debugDescription): \(value)")
                return false
            }
        }
    }

    /// The index of the `,` right before the `]`/`}` our error points at, if that is the error.
    static func trailingCommaBefore(_ error: JSONError, in bytes: [UInt8]) -> Int? {
        guard error.offset < bytes.count, bytes[error.offset] == 0x5D || bytes[error.offset] == 0x7D else { return nil }
        var i = error.offset - 1
        while i >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i -= 1 }
        return i >= 0 && bytes[i] == 0x2C ? i : nil
    }

    static func containsNonFinite(_ value: JSONValue) -> Bool {
        switch value {
        case .double(let d): return !d.isFinite
        case .array(let elements): return elements.contains(where: containsNonFinite)
        case .object(let object): return object.members.contains { containsNonFinite($0.value) }
        default: return false
        }
    }

    /// Valid generated documents: both parsers accept and produce equal values.
    @Test func generatedValidDocumentsAgreeWithFoundation() {
        var generator = JSONDocumentGenerator(seed: 0x5EED_0001)
        var excluded: [Outcome: Int] = [:]
        var failures = 0
        for _ in 0..<4000 {
            let document = generator.document()
            #expect(throws: Never.self) { try JSONParser.validate(document) }
            if !JSONDifferentialTests.compare(document, excluded: &excluded) { failures += 1 }
            if failures > 10 { break }
        }
        #expect(failures == 0)
        #expect(excluded.isEmpty, "valid documents need no exclusions: \(excluded)")
    }

    /// Mutated documents (truncations, inserted/deleted/replaced bytes, bad escapes, bad numbers,
    /// control characters, invalid UTF-8, deep nesting, junk): both agree on validity and values,
    /// except for the documented RFC-violating Foundation behaviours.
    @Test func mutatedDocumentsAgreeWithFoundation() {
        var generator = JSONDocumentGenerator(seed: 0x5EED_0002)
        var excluded: [Outcome: Int] = [:]
        var failures = 0
        var invalidCount = 0
        for _ in 0..<3000 {
            let mutated = generator.mutate(generator.document())
            if (try? JSONParser.validate(mutated)) == nil { invalidCount += 1 }
            if !JSONDifferentialTests.compare(mutated, excluded: &excluded) { failures += 1 }
            if failures > 10 { break }
        }
        #expect(failures == 0)
        #expect(invalidCount > 1500, "most mutations must produce invalid JSON")
        // Each exclusion class is expected to occur (the generator inserts them), proving it is exercised.
        #expect(excluded[.trailingCommaExcluded, default: 0] > 0)
        #expect(excluded[.overflowExcluded, default: 0] > 0)
    }

    /// The documented disagreements, spelled out.
    @Test func documentedFoundationDeviations() throws {
        // Foundation accepts trailing commas; RFC 8259 does not.
        #expect(jsonFoundationParse(Array("[1,]".utf8)) != nil)
        #expect(throws: JSONError(offset: 3, message: "expected a JSON value")) { try JSONParser.parse("[1,]") }
        #expect(jsonFoundationParse(Array("{\"a\":1,}".utf8)) != nil)
        #expect(throws: JSONError(offset: 7, message: "expected '\"' to begin an object key")) { try JSONParser.parse("{\"a\":1,}") }
        // Foundation skips a BOM; we reject it (not in the grammar).
        #expect(jsonFoundationParse([0xEF, 0xBB, 0xBF, 0x31]) != nil)
        #expect(throws: JSONError.self) { try JSONParser.parse([0xEF, 0xBB, 0xBF, 0x31]) }
        // Foundation rejects 1e400; we give +infinity.
        #expect(jsonFoundationParse(Array("1e400".utf8)) == nil)
        #expect(try JSONParser.parse("1e400") == .double(.infinity))
    }

    /// Behaviours where we match Foundation although RFC 8259 leaves room: lone surrogates, depth 512, leading zeros.
    @Test func sharedStrictnessWithFoundation() {
        for text in ["\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "01", "-01", "1.", ".5", "+1", "\"\\x\""] {
            #expect(jsonFoundationParse(Array(text.utf8)) == nil, "\(text)")
            #expect((try? JSONParser.parse(text)) == nil, "\(text)")
        }
        let deep512 = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let deep513 = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(jsonFoundationParse(Array(deep512.utf8)) != nil)
        #expect((try? JSONParser.parse(deep512)) != nil)
        #expect(jsonFoundationParse(Array(deep513.utf8)) == nil)
        #expect((try? JSONParser.parse(deep513)) == nil)
    }
}
