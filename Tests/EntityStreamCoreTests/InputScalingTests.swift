import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel
@testable import EntityStreamWhere

/// Inputs an attacker or a careless script controls in size: each is
/// beyond what a quadratic reader could finish within the time limit
/// (minutes), yet takes a second or two (debug build) when the work is
/// linear or n·log n. The tests' oracles are counts and sums they built.
@Suite("Input scaling: large inputs in linear or n·log n time", .bounded)
struct InputScalingTests {
    /// A JSON array of 200,000 numbers parses, every element kept in order
    /// (the array reader copied its partial array at every element: 8 s for 40,000).
    @Test func hugeArrayParsesLinearly() throws {
        let count = 200_000
        var text = "["
        text.reserveCapacity(count * 8)
        for i in 0..<count { text += i == 0 ? "\(i % 1000)" : ",\(i % 1000)" }
        text += "]"
        let elements = try #require(try JSONParser.parse(text).arrayValue)
        #expect(elements.count == count)
        #expect(elements[count - 1] == .int(Int64((count - 1) % 1000)))
        var sum: Int64 = 0
        for element in elements { sum += element.intValue ?? 0 }
        #expect(sum == (0..<Int64(count)).reduce(0) { $0 + $1 % 1000 })
    }

    /// An object of 150,000 members, and arrays of objects of arrays:
    /// members and elements are appended in place, whatever the nesting.
    @Test func hugeObjectsAndNestedArraysParseLinearly() throws {
        let count = 150_000
        let object = "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let parsed = try #require(try JSONParser.parse(object).objectValue)
        #expect(parsed.count == count)
        #expect(parsed["k\(count - 1)"] == .int(Int64(count - 1)))
        let nested = "[" + (0..<10_000).map { "{\"a\":[\($0),[\($0)]]}" }.joined(separator: ",") + "]"
        let array = try #require(try JSONParser.parse(nested).arrayValue)
        #expect(array.count == 10_000)
        #expect(array[9_999]["a"]?[1]?[0] == .int(9_999))
    }

    /// `x IN (…40,000 strings…)` compiles and answers exactly like a
    /// brute-force membership test (the compiler compared every new literal
    /// with all earlier ones: more than 15 s for 15,000).
    @Test func hugeInListCompilesAndMatches() throws {
        let schema = Schema(fields: [Field(name: "name", type: .string), Field(name: "n", type: .integer)], trackIDField: "name")
        let names = (0..<40_000).map { "vessel \($0 * 7)" }
        let clause = try WhereClause("name IN (" + names.map { "'\($0)'" }.joined(separator: ",") + ")", schema: schema)
        let listed = Set(names)
        for probe in [0, 7, 8, 140_000, 279_993, 279_994, 5] {
            let name = "vessel \(probe)"
            let row = Observation(geometry: nil, attributes: [.string(name), .int(1)], receivedAt: 0)
            #expect(clause.matches(row) == listed.contains(name), "\(name)")
        }
        let numbers = try WhereClause("n IN (" + (0..<40_000).map { String($0 * 3) }.joined(separator: ",") + ")", schema: schema)
        for probe: Int64 in [0, 3, 4, 119_997, 119_998, -3] {
            let row = Observation(geometry: nil, attributes: [.string("a"), .int(probe)], receivedAt: 0)
            #expect(numbers.matches(row) == (probe >= 0 && probe % 3 == 0 && probe < 120_000), "\(probe)")
        }
    }
}
