/// A JSON object with its members in document order.
///
/// Duplicate keys are kept (RFC 8259 permits them; the members list shows
/// every one). Lookup by key returns the LAST member with that key, which is
/// what JSONSerialization and JavaScript's `JSON.parse` do. Keys compare as
/// Swift Strings (Unicode canonical equivalence). Equality and hashing are
/// over the ordered member list, so `{"a":1,"b":2} != {"b":2,"a":1}`.
/// Lookup is a linear scan for small objects and a hash index for objects
/// with 16 or more members. A value type; `Sendable`.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// One `"key": value` member.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Objects with at least this many members get a hash index for lookup.
    static let indexThreshold = 16

    /// The members in document order, duplicates included.
    public private(set) var members: [Member]
    /// Key → index of the last member with that key; built for large objects only.
    private var lastIndexByKey: [String: Int]?

    public init() {
        members = []
        lastIndexByKey = nil
    }

    public init(members: [Member]) {
        self.members = members
        self.lastIndexByKey = nil
        buildIndexIfLarge()
    }

    /// Builds from `(key, value)` pairs, in order (a dictionary would lose the order).
    public init(_ pairs: [(String, JSONValue)]) {
        self.init(members: pairs.map { Member(key: $0.0, value: $0.1) })
    }

    /// Appends a member at the end (a repeated key then wins lookups).
    public mutating func append(key: String, value: JSONValue) {
        members.append(Member(key: key, value: value))
        if lastIndexByKey != nil {
            lastIndexByKey?[key] = members.count - 1
        } else {
            buildIndexIfLarge()
        }
    }

    /// The value of the last member named `key`, or nil.
    public subscript(key: String) -> JSONValue? {
        if let lastIndexByKey {
            return lastIndexByKey[key].map { members[$0].value }
        }
        for member in members.reversed() where member.key == key {
            return member.value
        }
        return nil
    }

    /// The keys in document order (duplicates included).
    public var keys: [String] { members.map(\.key) }

    // MARK: RandomAccessCollection over members

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    // MARK: Hashable over members only (the index is derived data)

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }

    private mutating func buildIndexIfLarge() {
        guard members.count >= JSONObject.indexThreshold else { return }
        var index = [String: Int](minimumCapacity: members.count)
        for (i, member) in members.enumerated() { index[member.key] = i }
        lastIndexByKey = index
    }
}
