/// The command line's words, consumed front to back, with the value
/// checks every flag shares. Each failure is a ``UsageError`` naming the
/// flag and what was expected (exit status 2).
struct ArgumentList {
    private var words: [String]
    private var index = 0

    init(_ words: [String]) {
        self.words = words
    }

    var isEmpty: Bool { index >= words.count }

    /// The next word, or nil at the end.
    mutating func next() -> String? {
        guard index < words.count else { return nil }
        defer { index += 1 }
        return words[index]
    }

    /// The value of `flag` (the following word); `--flag=value` was split before.
    mutating func value(for flag: String) throws(UsageError) -> String {
        guard let value = next() else { throw UsageError("\(flag) needs a value") }
        return value
    }

    /// The most seconds a time flag accepts (about 31 years): longer times
    /// would overflow the millisecond clock.
    static let maximumSeconds: Double = 1_000_000_000

    mutating func integer(for flag: String, minimum: Int, maximum: Int = .max) throws(UsageError) -> Int {
        let text = try value(for: flag)
        guard let number = Int(text), number >= minimum else {
            throw UsageError("\(flag) expects a whole number ≥ \(minimum), not '\(text)'")
        }
        guard number <= maximum else { throw UsageError("\(flag) expects a whole number ≤ \(maximum), not '\(text)'") }
        return number
    }

    mutating func number(for flag: String, minimum: Double, inclusive: Bool = true,
                         maximum: Double = .greatestFiniteMagnitude) throws(UsageError) -> Double {
        let text = try value(for: flag)
        guard let number = Double(text), number.isFinite, inclusive ? number >= minimum : number > minimum else {
            throw UsageError("\(flag) expects a number \(inclusive ? "≥" : ">") \(Self.format(minimum)), not '\(text)'")
        }
        guard number <= maximum else { throw UsageError("\(flag) expects a number ≤ \(Self.format(maximum)), not '\(text)'") }
        return number
    }

    /// Seconds for a time flag: at least `minimum`, at most ``maximumSeconds``.
    mutating func seconds(for flag: String, minimum: Double, inclusive: Bool = true) throws(UsageError) -> Double {
        try number(for: flag, minimum: minimum, inclusive: inclusive, maximum: Self.maximumSeconds)
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    /// Splits `--flag=value` words into two, keeping everything else.
    static func expandingEquals(_ words: [String]) -> [String] {
        words.flatMap { word -> [String] in
            guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return [word] }
            return [String(word[..<equals]), String(word[word.index(after: equals)...])]
        }
    }
}

/// A command-line mistake: printed as one line on stderr, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
