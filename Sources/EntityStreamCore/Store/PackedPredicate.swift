import EntityStreamModel
import EntityStreamWhere
/// A where clause bound to one store's packed records and string table, for
/// scans: the common shapes — comparisons of a field with a number, string
/// equality and `IN` lists (as interned ids), `IS NULL`, `BETWEEN`, and
/// AND/OR/NOT of those — test the 8-byte words directly, without building
/// attribute values (no string copies, no reference counting). Anything
/// else is evaluated by the where engine on a view of the record, so the
/// answer is always exactly ``WhereClause/evaluate(_:)``'s.
///
/// Valid only while the string buffer it was built with is (one scan).
struct PackedPredicate {
    /// Tests the attribute words of one record (`count` of them).
    typealias Test = (UnsafePointer<UInt64>, Int) -> SQLTruth

    let test: Test

    init(_ clause: WhereClause, strings: UnsafeBufferPointer<String>) {
        test = Self.compile(clause.condition, table: StringIDs(strings: strings, literals: Self.stringLiterals(clause.condition)), strings: strings)
    }

    /// Interned ids of the clause's string literals, found by one pass over
    /// the table (ids are compared by bytes: interning equates canonically
    /// equivalent spellings, where clauses do not).
    struct StringIDs {
        private var ids: [ExactText.Key: UInt32] = [:]

        init(strings: UnsafeBufferPointer<String>, literals: Set<ExactText.Key>) {
            guard !literals.isEmpty else { return }
            let lengths = Set(literals.map { $0.text.utf8.count })
            for (index, string) in strings.enumerated() where lengths.contains(string.utf8.count) {
                let key = ExactText.Key(string)
                if literals.contains(key) && ids[key] == nil { ids[key] = UInt32(index) }
            }
        }

        func id(ofExactly string: String) -> UInt32? { ids[ExactText.Key(string)] }
    }

    private static func stringLiterals(_ condition: WhereCondition) -> Set<ExactText.Key> {
        switch condition {
        case .and(let items), .or(let items): return items.reduce(into: Set<ExactText.Key>()) { $0.formUnion(stringLiterals($1)) }
        case .not(let inner): return stringLiterals(inner)
        case .compareField(_, _, .string(let text)): return [ExactText.Key(text)]
        case .fieldInLiterals(_, let literals, _):
            return Set(literals.stringValues.map(ExactText.Key.init))
        default: return []
        }
    }

    func matches(_ attributes: UnsafePointer<UInt64>, count: Int) -> Bool {
        test(attributes, count) == .true
    }

    // MARK: Compilation

    private static func compile(_ condition: WhereCondition, table: StringIDs, strings: UnsafeBufferPointer<String>) -> Test {
        switch condition {
        case .constant(let truth):
            return { _, _ in truth }
        case .and(let items):
            return fold(items.map { compile($0, table: table, strings: strings) }) { a, b in
                { words, count in
                    let left = a(words, count)
                    if left == .false { return .false }
                    return left && b(words, count)
                }
            }
        case .or(let items):
            return fold(items.map { compile($0, table: table, strings: strings) }) { a, b in
                { words, count in
                    let left = a(words, count)
                    if left == .true { return .true }
                    return left || b(words, count)
                }
            }
        case .not(let inner):
            let test = compile(inner, table: table, strings: strings)
            return { words, count in !test(words, count) }
        case .compareField(let field, let op, let literal):
            if let number = WhereValueOrder.number(literal) {
                return { words, count in
                    let word = field < count ? words[field] : PackedValue.null
                    switch PackedValue.number(word) {
                    case .number(let value): return WhereValueOrder.truth(WhereValueOrder.compare(value, number), op)
                    case .notNumeric: return .unknown
                    case .needsTable:
                        return WhereValueOrder.truth(WhereValueOrder.compare(PackedValue.unpack(word, strings: strings), literal), op)
                    }
                }
            }
            if case .string(let text) = literal, op == .equal || op == .notEqual {
                let id = table.id(ofExactly: text).map { PackedValue.stringTag << 48 | UInt64($0) }
                let equal: SQLTruth = op == .equal ? .true : .false
                return { words, count in
                    let word = field < count ? words[field] : PackedValue.null
                    let tag = PackedValue.tag(word)
                    if tag == PackedValue.stringTag { return word == id ? equal : !equal }
                    return .unknown   // NULL, or a number compared with a string
                }
            }
        case .fieldInLiterals(let field, let literals, let negated):
            if literals.isOnlyStrings {
                let hasNull = literals.hasNull
                var ids = Set<UInt64>()
                for text in literals.stringValues {
                    if let id = table.id(ofExactly: text) { ids.insert(PackedValue.stringTag << 48 | UInt64(id)) }
                }
                return { words, count in
                    let word = field < count ? words[field] : PackedValue.null
                    guard PackedValue.tag(word) == PackedValue.stringTag else { return .unknown }
                    if ids.contains(word) { return negated ? .false : .true }
                    if hasNull { return .unknown }
                    return negated ? .true : .false
                }
            }
        case .isNull(.field(let field), let negated):
            return { words, count in
                let isNull = field >= count || PackedValue.tag(words[field]) == PackedValue.nullTag
                return SQLTruth(isNull != negated)
            }
        default:
            break
        }
        // Everything else: the where engine on a view of the record.
        return { words, count in condition.evaluate(PackedAttributes(words: words, count: count, strings: strings)) }
    }

    /// `a ∘ (b ∘ (c …))`: nested closures, so evaluation calls captured
    /// closures instead of iterating an array of them.
    private static func fold(_ tests: [Test], _ combine: (@escaping Test, @escaping Test) -> Test) -> Test {
        guard var result = tests.last else { return { _, _ in .true } }
        for test in tests.dropLast().reversed() { result = combine(test, result) }
        return result
    }
}

/// The attribute words of one packed record as an ``AttributeRow``.
struct PackedAttributes: AttributeRow {
    let words: UnsafePointer<UInt64>
    let count: Int
    let strings: UnsafeBufferPointer<String>

    func value(at fieldIndex: Int) -> AttributeValue {
        guard fieldIndex >= 0, fieldIndex < count else { return .null }
        return PackedValue.unpack(words[fieldIndex], strings: strings)
    }
}
