import EntityStreamCore

/// The command line's words, consumed front to back, with the value
/// checks every flag shares. Each failure is a ``UsageError`` naming the
/// flag and what was expected (exit status 2).
///
/// ``next()`` reads a word in flag (or operand) position: `--flag=value`
/// there is the flag with its value attached. A flag's value is the
/// attached one or else the following word, whatever it starts with
/// (`--where "--1 = 1"`, `--token -abc`); a flag that takes no value
/// refuses an attached one.
struct ArgumentList {
    private var words: [String]
    private var index = 0
    /// The value attached to the last flag read (`--flag=value`), until taken.
    private var attached: (flag: String, value: String)?

    init(_ words: [String]) {
        self.words = words
    }

    var isEmpty: Bool { index >= words.count && attached == nil }

    /// The words not read yet (a command that hands the rest to another parser).
    var remainingWords: [String] { Array(words[min(index, words.count)...]) }

    /// The next flag or operand, or nil at the end. Throws when the previous
    /// flag was given a value (`--flag=value`) it does not take.
    mutating func next() throws(UsageError) -> String? {
        if let attached {
            throw UsageError("\(attached.flag) takes no value (given '\(attached.value)')")
        }
        guard index < words.count else { return nil }
        let word = words[index]
        index += 1
        if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
            let flag = String(word[..<equals])
            attached = (flag, String(word[word.index(after: equals)...]))
            return flag
        }
        return word
    }

    /// The value of `flag`: attached to it (`--flag=value`) or the following word, as it is.
    mutating func value(for flag: String) throws(UsageError) -> String {
        if let attached {
            self.attached = nil
            return attached.value
        }
        guard index < words.count else { throw UsageError("\(flag) needs a value") }
        defer { index += 1 }
        return words[index]
    }

    /// The most seconds a time flag accepts (about 31 years): longer times
    /// would overflow the millisecond clock. The simulator uses the same bound.
    static let maximumSeconds: Double = TimeBounds.maximumSeconds

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
}

/// A command-line mistake: printed as one line on stderr, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
