import EntityStreamCore
import EntityStreamModel

/// The command line's words, consumed front to back, with the value
/// checks every flag shares — the one parser of both programs,
/// `entitystream` and `stream-simulator`. Each failure is a ``UsageError``
/// naming the flag and what was expected (exit status 2).
///
/// ``next()`` reads a word in flag (or operand) position: `--flag=value`
/// there is the flag with its value attached. A flag's value is the
/// attached one or else the following word, whatever it starts with
/// (`--where "--1 = 1"`, `--token -abc`); a flag that takes no value
/// refuses an attached one. A deprecated spelling is read as its
/// replacement (``canonical(_:)``), with one warning on stderr.
public struct ArgumentList {
    private var words: [String]
    private var index = 0
    /// The value attached to the last flag read (`--flag=value`), until taken.
    private var attached: (flag: String, value: String)?

    /// The program's name, for deprecation warnings.
    public let program: String
    /// Deprecated spellings → the flag they stand for (``canonical(_:)``).
    public var aliases: [String: String] = [:]

    public init(_ words: [String], program: String = "entitystream") {
        self.words = words
        self.program = program
    }

    public var isEmpty: Bool { index >= words.count && attached == nil }

    /// The words not read yet (a command that hands the rest to another parser).
    public var remainingWords: [String] { Array(words[min(index, words.count)...]) }

    /// The next flag or operand, or nil at the end. Throws when the previous
    /// flag was given a value (`--flag=value`) it does not take.
    public mutating func next() throws(UsageError) -> String? {
        if let attached {
            throw .unexpectedValue(flag: attached.flag, value: attached.value)
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

    /// The next flag or operand with a deprecated spelling replaced by the
    /// flag it stands for (a warning on stderr, once per spelling), or nil at the end.
    /// `--version` in flag position is thrown as ``VersionRequested``.
    public mutating func nextFlag() throws -> String? {
        guard let word = try next() else { return nil }
        if word == "--version" { throw VersionRequested() }
        return canonical(word)
    }

    /// `word`, or the flag a deprecated spelling of it stands for (warned once on stderr).
    public func canonical(_ word: String) -> String {
        guard let replacement = aliases[word] else { return word }
        Deprecation.warn(program: program, "\(word) is deprecated; use \(replacement)")
        return replacement
    }

    /// True when the next word is an operand (not a flag), for flags with optional operands.
    public var nextIsOperand: Bool {
        attached == nil && index < words.count && !words[index].hasPrefix("-")
    }

    /// The value of `flag`: attached to it (`--flag=value`) or the following word, as it is.
    public mutating func value(for flag: String) throws(UsageError) -> String {
        if let attached {
            self.attached = nil
            return attached.value
        }
        guard index < words.count else { throw .missingValue(flag: flag) }
        defer { index += 1 }
        return words[index]
    }

    /// The most seconds a time flag accepts (about 31 years): longer times
    /// would overflow the millisecond clock. The simulator uses the same bound.
    public static let maximumSeconds: Double = TimeBounds.maximumSeconds

    /// A whole number from `minimum` to `maximum`. A value below or above
    /// names the bound it crossed; digits too many for any `Int`
    /// (`--limit 99999999999999999999`) name both.
    public mutating func integer(for flag: String, minimum: Int, maximum: Int = .max) throws(UsageError) -> Int {
        try Self.integer(try value(for: flag), flag: flag, minimum: minimum, maximum: maximum)
    }

    /// Comma-separated whole numbers, each from `minimum` to `maximum` as ``integer(for:minimum:maximum:)``
    /// reads one (`--sizes 1000000,10000000`); at least one.
    public mutating func integers(for flag: String, minimum: Int, maximum: Int = .max) throws(UsageError) -> [Int] {
        let text = try nonEmptyValue(for: flag)
        var numbers: [Int] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            numbers.append(try Self.integer(String(item), flag: flag, minimum: minimum, maximum: maximum))
        }
        return numbers
    }

    /// `text` read as a whole number for `flag` (see ``integer(for:minimum:maximum:)``).
    public static func integer(_ text: String, flag: String, minimum: Int, maximum: Int = .max) throws(UsageError) -> Int {
        guard let number = Int(text) else {
            let overflowed = Self.isWholeNumber(text)
            throw .badNumber(flag: flag, value: text, expected: overflowed ? .wholeBetween(minimum, UInt64(max(0, maximum))) : .wholeAtLeast(minimum))
        }
        guard number >= minimum else { throw .badNumber(flag: flag, value: text, expected: .wholeAtLeast(minimum)) }
        guard number <= maximum else { throw .badNumber(flag: flag, value: text, expected: .wholeAtMost(maximum)) }
        return number
    }

    /// A finite number from `minimum` (or above it, not `inclusive`) to
    /// `maximum`. A value outside names the bound it crossed; one too large
    /// for a `Double` (`1e400`) names both.
    public mutating func number(for flag: String, minimum: Double, inclusive: Bool = true,
                         maximum: Double = .greatestFiniteMagnitude) throws(UsageError) -> Double {
        let text = try value(for: flag)
        guard let number = Double(text), number.isFinite, inclusive ? number >= minimum : number > minimum else {
            let overflowed = Double(text)?.isInfinite == true && !text.lowercased().contains("inf")
            throw .badNumber(flag: flag, value: text, expected: overflowed ? .between(minimum, inclusive: inclusive, maximum)
                                                                           : inclusive ? .atLeast(minimum) : .above(minimum))
        }
        guard number <= maximum else { throw .badNumber(flag: flag, value: text, expected: .atMost(maximum)) }
        return number
    }

    /// True for an optional sign and one or more ASCII digits: a whole number, however large.
    static func isWholeNumber(_ text: String) -> Bool {
        let digits = text.utf8.first == UInt8(ascii: "-") || text.utf8.first == UInt8(ascii: "+") ? text.utf8.dropFirst() : text.utf8[...]
        return !digits.isEmpty && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Seconds for a time flag: at least `minimum`, at most ``maximumSeconds``.
    public mutating func seconds(for flag: String, minimum: Double, inclusive: Bool = true) throws(UsageError) -> Double {
        try number(for: flag, minimum: minimum, inclusive: inclusive, maximum: Self.maximumSeconds)
    }

    /// A speed factor (`--speed X`), within ``TimeBounds/speeds``.
    public mutating func speed(for flag: String) throws(UsageError) -> Double {
        try number(for: flag, minimum: TimeBounds.speeds.lowerBound, maximum: TimeBounds.speeds.upperBound)
    }

    /// Milliseconds for a time flag (`--interval MS`): at least `minimum`, at most ``TimeBounds/maximumMilliseconds``.
    public mutating func milliseconds(for flag: String, minimum: Int) throws(UsageError) -> Int64 {
        Int64(try integer(for: flag, minimum: minimum, maximum: Int(TimeBounds.maximumMilliseconds)))
    }

    /// A whole number ≥ 0 up to `UInt64.max` (`--seed`).
    public mutating func unsigned(for flag: String) throws(UsageError) -> UInt64 {
        let text = try value(for: flag)
        guard let number = UInt64(text) else {
            // A negative number crossed the lower bound; more digits than any UInt64 holds, the range.
            let overflowed = Self.isWholeNumber(text) && Int(text) == nil
            throw .badNumber(flag: flag, value: text, expected: overflowed ? .wholeBetween(0, .max) : .wholeAtLeast(0))
        }
        return number
    }

    /// The value of `flag`, one of `choices` (`--slow-clients drop|close`).
    public mutating func choice(for flag: String, among choices: [String]) throws(UsageError) -> String {
        let text = try value(for: flag)
        guard choices.contains(text) else { throw .notOneOf(flag: flag, value: text, choices: choices) }
        return text
    }

    /// The value of `flag`, the choice whose raw value it is (`--format esri|geojson|csv`).
    public mutating func choice<Choice: RawRepresentable>(for flag: String, among choices: [Choice]) throws(UsageError) -> Choice
    where Choice.RawValue == String {
        let text = try value(for: flag)
        guard let chosen = choices.first(where: { $0.rawValue == text }) else {
            throw .notOneOf(flag: flag, value: text, choices: choices.map(\.rawValue))
        }
        return chosen
    }

    /// The value of `flag`, refused when empty (`--track-field ""`).
    public mutating func nonEmptyValue(for flag: String) throws(UsageError) -> String {
        let text = try value(for: flag)
        guard !text.isEmpty else { throw .missingValue(flag: flag) }
        return text
    }

    /// The value of `flag` read by `parse`; its error is the inner error of
    /// ``UsageError/invalidValue(flag:error:)``.
    public mutating func value<Value, Failure: Error & Sendable>(
        for flag: String, _ parse: (String) throws(Failure) -> Value
    ) throws(UsageError) -> Value {
        let text = try value(for: flag)
        do { return try parse(text) } catch { throw .invalidValue(flag: flag, error: error) }
    }

    /// The error for a flag `word` the command does not take (`command` nil: the program's own flags).
    public func unknownOption(_ word: String, command: String?) -> UsageError {
        .unknownOption(word, command: command, program: program)
    }
}

/// `--version` in flag position: print the version on stdout and exit 0.
public struct VersionRequested: Error, Sendable {
    public init() {}
}

/// `--help` (or `help`): print the text on stdout and exit 0.
public struct HelpRequested: Error, Sendable {
    public let text: String
    public init(text: String) { self.text = text }
}
