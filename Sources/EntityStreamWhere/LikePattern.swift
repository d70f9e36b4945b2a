/// A precompiled SQL-92 `LIKE` pattern.
///
/// `%` matches any run of characters (including none), `_` exactly one
/// character; everything else matches itself, **case-sensitively** and
/// binary (no Unicode normalization). A "character" is one Unicode scalar.
/// With an escape character, the escape followed by `%`, `_` or the escape
/// itself stands for that character literally; an escape followed by
/// anything else, or at the end of the pattern, is a ``Failure``. No
/// character is special in any other way (regex metacharacters like `.*+?[]`
/// are plain). Matching runs on UTF-8 bytes; common shapes (`abc`, `abc%`,
/// `%abc`, `%abc%`, `%`) get dedicated fast paths. A plain value type.
package struct LikePattern: Sendable, Hashable {
    /// A malformed pattern; `scalarOffset` is 0-based within the pattern text.
    struct Failure: Error, Sendable, Hashable {
        var scalarOffset: Int
        package var message: String
    }

    enum Element: Sendable, Hashable {
        case literal([UInt8])
        case anyCharacter
        case anyRun
    }

    enum Shape: Sendable, Hashable {
        case exact([UInt8])
        case prefix([UInt8])
        case suffix([UInt8])
        case contains([UInt8])
        case anything
        case general([Element])
    }

    let shape: Shape

    init(_ pattern: String, escape: Unicode.Scalar? = nil) throws(Failure) {
        var elements: [Element] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { elements.append(.literal(literal)); literal = [] }
        }
        let scalars = Array(pattern.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if let escape, c == escape {
                guard i + 1 < scalars.count else {
                    throw Failure(scalarOffset: i, message: "escape character '\(Character(escape))' at the end of the LIKE pattern")
                }
                let next = scalars[i + 1]
                guard next == "%" || next == "_" || next == escape else {
                    throw Failure(scalarOffset: i, message:
                        "escape character '\(Character(escape))' must be followed by '%', '_' or itself, not '\(Character(next))'")
                }
                literal.append(contentsOf: String(Character(next)).utf8)
                i += 2
                continue
            }
            switch c {
            case "%":
                flush()
                if elements.last != .anyRun { elements.append(.anyRun) }
            case "_":
                flush()
                elements.append(.anyCharacter)
            default:
                literal.append(contentsOf: String(Character(c)).utf8)
            }
            i += 1
        }
        flush()
        shape = Self.classify(elements)
    }

    private static func classify(_ e: [Element]) -> Shape {
        switch e.count {
        case 0: return .exact([])
        case 1:
            if case .literal(let l) = e[0] { return .exact(l) }
            if e[0] == .anyRun { return .anything }
        case 2:
            if case .literal(let l) = e[0], e[1] == .anyRun { return .prefix(l) }
            if case .literal(let l) = e[1], e[0] == .anyRun { return .suffix(l) }
        case 3:
            if case .literal(let l) = e[1], e[0] == .anyRun, e[2] == .anyRun { return .contains(l) }
        default: break
        }
        return .general(e)
    }

    /// True when `string` matches the whole pattern.
    func matches(_ string: String) -> Bool {
        if case .anything = shape { return true }
        return WhereUTF8.withBytes(string) { matches(bytes: $0) }
    }

    func matches(bytes s: UnsafeBufferPointer<UInt8>) -> Bool {
        switch shape {
        case .anything:
            return true
        case .exact(let l):
            return s.count == l.count && Self.equal(s, at: 0, l)
        case .prefix(let l):
            return s.count >= l.count && Self.equal(s, at: 0, l)
        case .suffix(let l):
            return s.count >= l.count && Self.equal(s, at: s.count - l.count, l)
        case .contains(let l):
            if l.count > s.count { return false }
            var start = 0
            while start + l.count <= s.count {
                if Self.equal(s, at: start, l) { return true }
                start += 1
            }
            return false
        case .general(let elements):
            return Self.matchGeneral(s, elements)
        }
    }

    @inline(__always)
    private static func equal(_ s: UnsafeBufferPointer<UInt8>, at offset: Int, _ l: [UInt8]) -> Bool {
        l.withUnsafeBufferPointer { lb in
            var k = 0
            while k < lb.count {
                if s[offset + k] != lb[k] { return false }
                k += 1
            }
            return true
        }
    }

    /// Index just past the UTF-8 scalar starting at `i` (`i < s.count`).
    @inline(__always)
    private static func nextScalar(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        var j = i + 1
        while j < s.count && s[j] & 0xC0 == 0x80 { j += 1 }
        return j
    }

    /// Classic wildcard matching with single-star backtracking: every
    /// non-`%` element matches deterministically at a given position, so
    /// retrying from the last `%` one scalar further is complete. O(n·m) worst case.
    private static func matchGeneral(_ s: UnsafeBufferPointer<UInt8>, _ p: [Element]) -> Bool {
        var si = 0, pi = 0
        var starPattern = -1, starString = 0
        while si < s.count || pi < p.count {
            if pi < p.count {
                switch p[pi] {
                case .anyRun:
                    starPattern = pi
                    starString = si
                    pi += 1
                    continue
                case .anyCharacter:
                    if si < s.count {
                        si = nextScalar(s, si)
                        pi += 1
                        continue
                    }
                case .literal(let l):
                    if si + l.count <= s.count && equal(s, at: si, l) {
                        si += l.count
                        pi += 1
                        continue
                    }
                }
            }
            // Mismatch (or pattern exhausted with input left): backtrack.
            guard starPattern >= 0, starString < s.count else { return false }
            starString = nextScalar(s, starString)
            si = starString
            pi = starPattern + 1
        }
        return true
    }
}
