import EntityStreamModel
/// The rows of a service's `relatedFeatures` layer, indexed by the join
/// field: what ``RelatedFeatureJoin`` joins to observations.
///
/// Built once from the fetched rows (aligned to ``schema``). Keys compare
/// as ``JoinKey`` does (a number matches the same number whatever its JSON
/// type; strings exactly). A row whose join value is null is not indexed
/// (``rowsWithoutKey``); of several rows with one key the first is kept
/// (``duplicateKeys`` counts the others). A plain value.
public struct RelatedTable: Sendable {
    /// The related rows' fields.
    public let schema: Schema
    /// The join field's name as the description gives it.
    public let joinField: String
    /// The rows' values, aligned to ``schema``, first row per key only.
    let rows: [[AttributeValue]]
    /// Join key → index into ``rows``.
    let index: [JoinKey: Int]
    /// Rows skipped because another row had the same key first.
    public let duplicateKeys: Int
    /// Rows skipped because their join value was null.
    public let rowsWithoutKey: Int

    /// - Throws: ``RelatedFeaturesError`` when `joinField` is not a field of `schema`.
    public init(schema: Schema, joinField: String, rows: [[AttributeValue]]) throws(RelatedFeaturesError) {
        guard let keyField = schema.index(ofField: joinField) else {
            throw .noJoinFieldInRelated(joinField, fields: schema.fields.map(\.name))
        }
        var kept: [[AttributeValue]] = []
        var index: [JoinKey: Int] = [:]
        var duplicates = 0
        var withoutKey = 0
        for row in rows {
            guard let key = JoinKey(keyField < row.count ? row[keyField] : .null) else {
                withoutKey += 1
                continue
            }
            if index[key] != nil {
                duplicates += 1
                continue
            }
            index[key] = kept.count
            kept.append(row)
        }
        self.schema = schema
        self.joinField = joinField
        self.rows = kept
        self.index = index
        self.duplicateKeys = duplicates
        self.rowsWithoutKey = withoutKey
    }

    /// Rows indexed (one per distinct key).
    public var count: Int { rows.count }

    /// The row whose join value is `value`, if any.
    public func row(for value: AttributeValue) -> [AttributeValue]? {
        JoinKey(value).flatMap { index[$0] }.map { rows[$0] }
    }
}

/// A join value as the related-features join compares it: integral numbers
/// (integer, double or date values) as one integer, other numbers as
/// doubles, strings by their Unicode scalars (``ExactText``: "é" and
/// "e"+U+0301 do not join), booleans as themselves; null is no key.
public enum JoinKey: Hashable, Sendable {
    case integer(Int64)
    case number(Double)
    case text(String)
    case flag(Bool)

    public init?(_ value: AttributeValue) {
        switch value {
        case .null: return nil
        case .int(let i): self = .integer(i)
        case .date(let ms): self = .integer(ms)
        case .double(let d):
            if let i = Int64(exactly: d) { self = .integer(i) } else if d.isNaN { return nil } else { self = .number(d) }
        case .string(let s): self = .text(s)
        case .bool(let b): self = .flag(b)
        }
    }

    public static func == (a: JoinKey, b: JoinKey) -> Bool {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.text(x), .text(y)): return ExactText.equal(x, y)
        case let (.flag(x), .flag(y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .integer(let x): hasher.combine(0 as UInt8); hasher.combine(x)
        case .number(let x): hasher.combine(1 as UInt8); hasher.combine(x)
        case .text(let x): hasher.combine(2 as UInt8); ExactText.hash(x, into: &hasher)
        case .flag(let x): hasher.combine(3 as UInt8); hasher.combine(x)
        }
    }
}
