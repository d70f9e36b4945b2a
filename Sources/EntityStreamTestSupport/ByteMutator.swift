import EntityStreamCore
import EntityStreamModel

/// Seeded byte-level mutations of valid inputs, for the fuzz tests: bit
/// flips, random bytes, deleted, duplicated and swapped ranges,
/// truncation, tokens from a dictionary (member names, extreme numbers,
/// JSON punctuation, invalid UTF-8) and numbers replaced by extreme ones.
/// Deterministic: the same seed and inputs give the same mutations. With
/// `allowNewlines` false no mutation adds a line feed (so a mutated line of
/// a file stays one line). A value type; not thread-safe.
public struct ByteMutator: Sendable {
    public var rng: SplitMix64
    public var dictionary: [[UInt8]]
    public var allowNewlines: Bool

    /// Tokens every JSON input is worth trying.
    public static let jsonTokens: [String] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "null", "true", "false", "-", "0", "-0", "1e308", "-1e308", "1e999", "5e-324",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616", "0.5", "1.", "NaN",
        "\"\"", "[]", "{}", "[[[[[[", "\\u0000", "\\uD800", "é", "😀", "\u{0}", " ", "\t", "\r",
    ]

    /// Numbers that break naive arithmetic.
    public static let extremeNumbers: [String] = [
        "0", "-1", "1e308", "-1e308", "1e999", "5e-324", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "1.5", "-0", "4294967296", "1e-300", "253402300800000", "-62135596800001",
    ]

    public init(seed: UInt64, dictionary: [String] = [], allowNewlines: Bool = true) {
        rng = SplitMix64(seed: seed)
        self.dictionary = (dictionary + Self.jsonTokens).map { Array($0.utf8) }
            + [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80], [0xEF, 0xBB, 0xBF]]
        self.allowNewlines = allowNewlines
    }

    /// A uniform integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + rng.next(below: range.count)
    }

    /// An element of `elements` (which must not be empty).
    public mutating func pick<T>(_ elements: [T]) -> T {
        elements[rng.next(below: elements.count)]
    }

    /// `bytes` with `count` random mutations applied one after another.
    public mutating func mutate(_ bytes: [UInt8], count: Int = 1) -> [UInt8] {
        var result = bytes
        for _ in 0..<max(count, 0) { result = mutateOnce(result) }
        if !allowNewlines { result = result.map { $0 == 0x0A ? 0x0B : $0 } }
        return result
    }

    private mutating func mutateOnce(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        guard !bytes.isEmpty else { return dictionary[rng.next(below: dictionary.count)] }
        let at = rng.next(below: bytes.count)
        switch rng.next(below: 10) {
        case 0:
            bytes[at] ^= UInt8(1) << UInt8(rng.next(below: 8))
        case 1:
            bytes[at] = UInt8(truncatingIfNeeded: rng.next())
        case 2:
            bytes.removeSubrange(at..<min(bytes.count, at + 1 + rng.next(below: 8)))
        case 3:
            let range = at..<min(bytes.count, at + 1 + rng.next(below: 16))
            bytes.insert(contentsOf: bytes[range], at: range.upperBound)
        case 4, 5:
            bytes.insert(contentsOf: pick(dictionary), at: rng.next(below: bytes.count + 1))
        case 6:
            // Replace a whole token by one from the dictionary.
            let end = bytes[at...].firstIndex { [0x2C, 0x3A, 0x7D, 0x5D].contains($0) } ?? bytes.count
            bytes.replaceSubrange(at..<end, with: pick(dictionary))
        case 7:
            // A number (the digits around a random digit) becomes an extreme one.
            guard let digit = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) else { return bytes }
            var lower = digit, upper = digit
            while lower > 0, Self.isNumberByte(bytes[lower - 1]) { lower -= 1 }
            while upper < bytes.count, Self.isNumberByte(bytes[upper]) { upper += 1 }
            bytes.replaceSubrange(lower..<upper, with: Array(pick(Self.extremeNumbers).utf8))
        case 8:
            bytes.removeSubrange(at...)
        default:
            let other = rng.next(below: bytes.count)
            let length = min(1 + rng.next(below: 8), bytes.count - max(at, other))
            guard length > 0, at != other else { return bytes }
            for offset in 0..<length where abs(at - other) >= length { bytes.swapAt(at + offset, other + offset) }
        }
        return bytes
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || byte == 0x2E || byte == 0x2D || byte == 0x2B || byte == 0x65 || byte == 0x45
    }
}
