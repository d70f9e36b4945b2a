import Testing
@testable import EntityStreamCore

/// Inputs an attacker or a careless script controls in size: each is far
/// beyond what a quadratic reader could finish within the time limit
/// (minutes to hours), yet takes about a second when the work is linear or
/// n·log n. The test's own oracles are counts and sums it built itself.
@Suite("Input scaling: large inputs in linear or n·log n time")
struct InputScalingTests {
    /// A JSON array of 400,000 numbers parses, every element kept in order
    /// (the array reader copied its partial array at every element: 8 s for 40,000).
    @Test(.timeLimit(.minutes(1))) func hugeArrayParsesLinearly() throws {
        let count = 400_000
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

    /// An object of 100,000 members inside an array of 100,000 small objects:
    /// members and elements are appended in place, whatever the nesting.
    @Test(.timeLimit(.minutes(1))) func hugeObjectsAndNestedArraysParseLinearly() throws {
        let count = 100_000
        let object = "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let parsed = try #require(try JSONParser.parse(object).objectValue)
        #expect(parsed.count == count)
        #expect(parsed["k99999"] == .int(99_999))
        let nested = "[" + (0..<count).map { "{\"a\":[\($0),[\($0)]]}" }.joined(separator: ",") + "]"
        let array = try #require(try JSONParser.parse(nested).arrayValue)
        #expect(array.count == count)
        #expect(array[count - 1]["a"]?[1]?[0] == .int(Int64(count - 1)))
    }

    /// `x IN (…100,000 strings…)` compiles and answers exactly like a
    /// brute-force membership test (the compiler compared every new literal
    /// with all earlier ones: more than 15 s for 15,000).
    @Test(.timeLimit(.minutes(1))) func hugeInListCompilesAndMatches() throws {
        let schema = Schema(fields: [Field(name: "name", type: .string), Field(name: "n", type: .integer)], trackIDField: "name")
        let names = (0..<100_000).map { "vessel \($0 * 7)" }
        let clause = try WhereClause("name IN (" + names.map { "'\($0)'" }.joined(separator: ",") + ")", schema: schema)
        let listed = Set(names)
        for probe in [0, 7, 8, 350_000, 699_993, 699_994, 5] {
            let name = "vessel \(probe)"
            let row = Observation(geometry: nil, attributes: [.string(name), .int(1)], receivedAt: 0)
            #expect(clause.matches(row) == listed.contains(name), "\(name)")
        }
        let numbers = try WhereClause("n IN (" + (0..<100_000).map { String($0 * 3) }.joined(separator: ",") + ")", schema: schema)
        for probe: Int64 in [0, 3, 4, 299_997, 299_998, -3] {
            let row = Observation(geometry: nil, attributes: [.string("a"), .int(probe)], receivedAt: 0)
            #expect(numbers.matches(row) == (probe >= 0 && probe % 3 == 0 && probe < 300_000), "\(probe)")
        }
    }
}
