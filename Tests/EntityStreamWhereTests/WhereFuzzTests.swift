import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere

@Suite("Where robustness: no input crashes the engine", .bounded(.compute, limit: FuzzRounds.timeLimit))
struct WhereFuzzTests {
    typealias F = WhereFixture

    static let vocabulary: [String] = [
        "speed", "agency", "vehiclename", "lastupdate", "payload", "\"speed limit\"", "\"speed", "spede", "heading",
        "AND", "OR", "NOT", "IN", "IS", "NULL", "LIKE", "BETWEEN", "ESCAPE", "date", "timestamp", "TRUE",
        "UPPER", "LOWER", "CHAR_LENGTH", "ABS", "foo", "(", ")", "(", ")", ",", "=", "<>", "!=", "<", "<=", ">", ">=",
        "+", "-", "*", "/", "!", "0", "1", "-1", "3", "25.5", "1e3", "1.2.3", "9223372036854775808", "1e999",
        "'TRUCK%'", "'a'", "''", "'it''s'", "'", "'2024-02-29'", "'2023-02-29'", "'2024-01-01 00:00:00.5'",
        "'\\'", "'a\\_b'", "'%'", "'_'", "'日本'", "\"\"", ";", "#", "é", "😀", " ", "\t",
    ]

    static let rows: [Observation] = [
        F.row(F.plow), F.row([:]), F.plow(["speed": .null, "vehiclename": .null]),
        F.plow(["payload": .bool(true), "speed": .string("x"), "agency": .double(.nan), "vehiclename": .int(1)]),
        F.plow(["payload": .date(milliseconds: -1), "agency": .int(Int64.min), "speed": .double(-.infinity)]),
        Observation(geometry: nil, attributes: [], receivedAt: 0),
    ]

    /// Compiling returns or throws WhereClauseError; evaluating always returns; positions stay in range.
    static func exercise(_ text: String, seed: UInt64) {
        let count = text.unicodeScalars.count
        do {
            let clause = try WhereClause(text, schema: F.schema)
            for row in rows {
                let truth = clause.evaluate(row)
                #expect(clause.matches(row) == (truth == .true), "\(text) — \(FuzzRounds.label(seed))")
            }
            #expect(clause.referencedFieldIndices == Array(Set(clause.referencedFieldIndices)).sorted(), "\(text) — \(FuzzRounds.label(seed))")
        } catch {
            #expect(error.position >= 1 && error.position <= count + 1, "\(text): \(error) — \(FuzzRounds.label(seed))")
            #expect(!error.message.isEmpty, "\(text) — \(FuzzRounds.label(seed))")
            _ = error.description
        }
    }

    /// A few thousand random token soups only ever compile or throw WhereClauseError.
    @Test func randomTokenSoups() async {
        await FuzzRounds.run("where token soups", fixed: [42]) { seed in
            var generator = SplitMix64(seed: seed)
            var compiled = 0
            for _ in 0..<4000 {
                let length = Int.random(in: 0...14, using: &generator)
                let tokens = (0..<length).map { _ in Self.vocabulary.randomElement(using: &generator)! }
                let separator = Bool.random(using: &generator) ? " " : ""
                let text = tokens.joined(separator: separator)
                if (try? WhereClause(text, schema: F.schema)) != nil { compiled += 1 }
                Self.exercise(text, seed: seed)
            }
            #expect(compiled > 0, "\(FuzzRounds.label(seed))")
        }
    }

    /// Mutations of valid clauses (deleted, duplicated, swapped characters) never crash.
    @Test func mutatedValidClauses() async {
        let seeds = [
            "speed > 0 AND agency IN (3,4) AND vehiclename LIKE 'TRUCK%'",
            "lastupdate BETWEEN date '2024-01-01' AND timestamp '2024-12-31 23:59:59.999'",
            "NOT (UPPER(vehicletype) = 'PLOW' OR \"speed limit\" - speed >= -1.5e2) AND payload IS NOT NULL",
            "vehiclename LIKE 'a!%b' ESCAPE '!' OR agency NOT IN (1, NULL, -2) AND ABS(point_x / 0) IS NULL",
        ]
        await FuzzRounds.run("where mutated clauses", fixed: [7]) { seed in
            var generator = SplitMix64(seed: seed)
            for _ in 0..<3000 {
                var scalars = Array(seeds.randomElement(using: &generator)!.unicodeScalars)
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !scalars.isEmpty {
                    let i = Int.random(in: 0..<scalars.count, using: &generator)
                    switch Int.random(in: 0...2, using: &generator) {
                    case 0: scalars.remove(at: i)
                    case 1: scalars.insert(scalars[i], at: i)
                    default: scalars.swapAt(i, Int.random(in: 0..<scalars.count, using: &generator))
                    }
                }
                Self.exercise(String(String.UnicodeScalarView(scalars)), seed: seed)
            }
        }
    }

    /// Random strings of arbitrary scalars (ASCII-heavy, plus controls and non-ASCII) never crash.
    @Test func randomStrings() async {
        await FuzzRounds.run("where random strings", fixed: [1234]) { seed in
            var generator = SplitMix64(seed: seed)
            let extra: [Unicode.Scalar] = ["\u{0}", "\u{7F}", "\u{301}", "\u{FEFF}", "\u{2028}", "日", "😀", "\u{10FFFF}"]
            for _ in 0..<4000 {
                var text = String.UnicodeScalarView()
                for _ in 0..<Int.random(in: 0...30, using: &generator) {
                    if Int.random(in: 0..<8, using: &generator) == 0 {
                        text.append(extra.randomElement(using: &generator)!)
                    } else {
                        text.append(Unicode.Scalar(UInt8.random(in: 32...126, using: &generator)))
                    }
                }
                Self.exercise(String(text), seed: seed)
            }
        }
    }
}
