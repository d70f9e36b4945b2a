/// The kinds (array or object) of the containers currently open, one bit per
/// level, for the iterative (non-recursive) readers.
///
/// The first 512 levels live inline (no allocation); deeper levels, possible
/// only when a caller raises `maxDepth` above 512, spill into an array.
struct JSONContainerStack {
    private static let inlineWords = 8
    private var inlineBits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var spilledBits: [UInt64] = []
    private(set) var depth = 0

    var isEmpty: Bool { depth == 0 }

    @inline(__always)
    mutating func push(isObject: Bool) {
        let word = depth >> 6
        let mask: UInt64 = 1 << UInt64(depth & 63)
        var bits = self.word(word)
        if isObject { bits |= mask } else { bits &= ~mask }
        setWord(word, to: bits)
        depth += 1
    }

    @inline(__always)
    mutating func pop() {
        depth -= 1
    }

    /// True when the innermost open container is an object. Requires `!isEmpty`.
    @inline(__always)
    var topIsObject: Bool {
        let level = depth - 1
        return word(level >> 6) & (1 << UInt64(level & 63)) != 0
    }

    @inline(__always)
    private func word(_ index: Int) -> UInt64 {
        if index < JSONContainerStack.inlineWords {
            return withUnsafeBytes(of: inlineBits) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
        }
        let spilled = index - JSONContainerStack.inlineWords
        return spilled < spilledBits.count ? spilledBits[spilled] : 0
    }

    @inline(__always)
    private mutating func setWord(_ index: Int, to value: UInt64) {
        if index < JSONContainerStack.inlineWords {
            withUnsafeMutableBytes(of: &inlineBits) { $0.storeBytes(of: value, toByteOffset: index * 8, as: UInt64.self) }
            return
        }
        let spilled = index - JSONContainerStack.inlineWords
        while spilledBits.count <= spilled { spilledBits.append(0) }
        spilledBits[spilled] = value
    }
}
