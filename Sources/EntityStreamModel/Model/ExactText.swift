/// Equality and hashing of stored text by its Unicode scalars, as SQL
/// engines (SQLite, DuckDB, SQL Server's binary collations) and ArcGIS
/// compare stored strings.
///
/// Swift's `String ==` and `String.hash(into:)` are canonical equivalence:
/// "é" (U+00E9) and "e" + U+0301 are equal to Swift, while every engine
/// this project is checked against keeps them apart (two groups, two track
/// ids, no join between them). Every place that compares, hashes, groups,
/// interns or joins *stored data* (attribute values, track ids, group keys,
/// join keys, where-clause literals) goes through this type, never through
/// `String ==`. Field names and protocol keywords are not data and keep
/// their own (ASCII case-insensitive) rules. Stateless.
public enum ExactText {
    /// True when `a` and `b` hold the same Unicode scalars (same UTF-8 bytes).
    @inlinable
    public static func equal(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        if let same = x.withContiguousStorageIfAvailable({ p in
            y.withContiguousStorageIfAvailable { q in
                p.count == 0 || memcmpEqual(p.baseAddress!, q.baseAddress!, p.count)
            }
        }), let same { return same }
        return x.elementsEqual(y)
    }

    @inlinable @inline(__always)
    static func memcmpEqual(_ p: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var i = 0
        while i + 8 <= count {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(q + i).loadUnaligned(as: UInt64.self) { return false }
            i += 8
        }
        while i < count {
            if p[i] != q[i] { return false }
            i += 1
        }
        return true
    }

    /// Feeds `text`'s UTF-8 bytes (and their count) to `hasher`: consistent
    /// with ``equal(_:_:)``.
    @inlinable
    public static func hash(_ text: String, into hasher: inout Hasher) {
        let bytes = text.utf8
        hasher.combine(bytes.count)
        if bytes.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in bytes { hasher.combine(byte) }
        }
    }

    /// A string as a dictionary or set key that compares by scalars.
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public let text: String
        @inlinable public init(_ text: String) { self.text = text }
        @inlinable public static func == (a: Key, b: Key) -> Bool { ExactText.equal(a.text, b.text) }
        @inlinable public func hash(into hasher: inout Hasher) { ExactText.hash(text, into: &hasher) }
        public var description: String { text }
    }
}
