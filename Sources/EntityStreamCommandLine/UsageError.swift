/// A command-line mistake, by kind: printed as one line on stderr
/// (``description``), exit status 2. Code classifies on the case, never on
/// the text. ``ArgumentList`` makes the common ones (a missing value, a bad
/// number, a value not among the choices, an unknown option), so every
/// command says them the same way.
public enum UsageError: Error, CustomStringConvertible, Sendable {
    // MARK: Words in flag or operand position

    /// A command the program does not have (`entitystream bogus`); `command`
    /// is the word it followed, if any (`help bogus`).
    case unknownCommand(String, known: [String], program: String, command: String? = nil)
    /// A flag the command (or, without one, the program) does not take.
    case unknownOption(String, command: String?, program: String)
    /// An operand beyond those the command takes; `expected` says what it takes ("one service URL").
    case unexpectedArgument(String, command: String, expected: String? = nil)
    /// A required operand or flag was not given: `what` names it ("the service URL (…/StreamServer)", "-o FILE").
    case missingArgument(String, command: String?)

    // MARK: One flag's value

    /// A value attached to a flag that takes none (`--loop=yes`).
    case unexpectedValue(flag: String, value: String)
    /// A flag without its value (at the end of the line, or empty where a value is required).
    case missingValue(flag: String)
    /// A value that is not a number within the flag's bound.
    case badNumber(flag: String, value: String, expected: NumberBound)
    /// A value that is none of the flag's choices.
    case notOneOf(flag: String, value: String, choices: [String])
    /// A value without the form a flag (or a command's operand, `connect`) takes:
    /// `expected` describes it ("x,y (two numbers, …)").
    case malformed(String, value: String, expected: String)
    /// A value (a spatial reference, a time, a where clause, an address, …)
    /// that its own parser refused: `error` is that parser's typed error, printed after the flag.
    case invalidValue(flag: String, error: any Error & Sendable)
    /// A specification (`--layer NAME=FILE`, `--raster`, `--cors-origins`, …) its parser
    /// refused with an error that names the flag itself, printed as it is.
    case invalidSpecification(flag: String, error: any Error & Sendable)
    /// A flag (or a flag's name, `--columns Ships=`) given twice where it may be given once.
    case repeated(flag: String, advice: String? = nil)
    /// A flag refers to `name`, which nothing the command was given defines
    /// (`--enrich dem` without `--raster dem=…`); `definedBy` says what would
    /// ("raster (--raster NAME=FILE.tif)").
    case unknownName(String, flag: String, definedBy: String)

    // MARK: Flags together

    /// Flags (or a flag and a value, `--format geojson` and `--out-sr 2913`) that cannot be given together.
    case conflicting([String], command: String? = nil, reason: String? = nil)
    /// Flags that are given together or not at all (`--tls-cert` and `--tls-key`).
    case together([String], command: String? = nil)
    /// `flag` needs `needs` (a flag, or a value of one) to be given too.
    case requires(String, needs: String, command: String? = nil, reason: String? = nil)
    /// Flags that do not apply to what the command was given (`scope`
    /// says what they do apply to); `advice` says what to do instead.
    case notApplicable([String], command: String?, scope: String, advice: String? = nil)
    /// The command's operand (named by `operand` when it is one of several)
    /// or options, refused by the component that checks them (a URL, a
    /// request): `error` is its typed error.
    case invalidArgument(command: String, operand: String? = nil, error: any Error & Sendable)

    public var description: String {
        switch self {
        case .unknownCommand(let name, let known, let program, let command):
            return Self.prefix(command) + "unknown command '\(name)' (expected \(known.joined(separator: ", ")); see \(program) --help)"
        case .unknownOption(let option, let command, let program):
            return Self.prefix(command) + "unknown option '\(option)' (see \(program)\(command.map { " \($0)" } ?? "") --help)"
        case .unexpectedArgument(let word, let command, let expected):
            return "\(command): unexpected argument '\(word)'\(expected.map { "; give \($0)" } ?? "")"
        case .missingArgument(let what, let command):
            return Self.prefix(command) + "missing \(what)"
        case .unexpectedValue(let flag, let value):
            return "\(flag) takes no value (given '\(value)')"
        case .missingValue(let flag):
            return "\(flag) needs a value"
        case .badNumber(let flag, let value, let expected):
            return "\(flag) expects \(expected), not '\(value)'"
        case .notOneOf(let flag, let value, let choices):
            return "\(flag) expects \(Self.alternatives(choices)), not '\(value)'"
        case .malformed(let flag, let value, let expected):
            return value.isEmpty ? "\(flag) expects \(expected)" : "\(flag) expects \(expected), not '\(value)'"
        case .invalidValue(let flag, let error):
            return "\(flag): \(error)"
        case .invalidSpecification(_, let error):
            return "\(error)"
        case .repeated(let flag, let advice):
            return "\(flag) is given twice\(advice.map { "; \($0)" } ?? "")"
        case .unknownName(let name, let flag, let definedBy):
            return "\(flag) \(name): no \(definedBy) is named '\(name)'"
        case .conflicting(let flags, let command, let reason):
            let choice = flags.count == 2 ? "either \(flags[0]) or \(flags[1]), not both" : "one of \(flags.joined(separator: ", ")), not several"
            return Self.prefix(command) + "use \(choice)\(reason.map { " (\($0))" } ?? "")"
        case .together(let flags, let command):
            return Self.prefix(command) + "\(Self.list(flags, and: "and")) go together"
        case .requires(let flag, let needs, let command, let reason):
            return Self.prefix(command) + "\(flag) needs \(needs)\(reason.map { " (\($0))" } ?? "")"
        case .notApplicable(let flags, let command, let scope, let advice):
            let verb = flags.count == 1 ? "applies" : "apply"
            return Self.prefix(command) + "\(Self.list(flags, and: "and")) \(verb) to \(scope)\(advice.map { "; \($0)" } ?? "")"
        case .invalidArgument(let command, let operand, let error):
            return "\(command): \(operand.map { "\($0): " } ?? "")\(error)"
        }
    }

    private static func prefix(_ command: String?) -> String { command.map { "\($0): " } ?? "" }

    /// `a`, `a or b`, `a, b or c`.
    static func alternatives(_ words: [String]) -> String { list(words, and: "or") }

    private static func list(_ words: [String], and conjunction: String) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " \(conjunction) " + words[words.count - 1]
    }
}

/// What a numeric flag accepts (``UsageError/badNumber(flag:value:expected:)``).
public enum NumberBound: Sendable, Hashable, CustomStringConvertible {
    case wholeAtLeast(Int)
    case wholeAtMost(Int)
    case atLeast(Double)
    case above(Double)
    case atMost(Double)
    /// Both bounds: what a value too large to read as a number at all is told.
    case wholeBetween(Int, UInt64)
    /// Both bounds of a number, the lower one included or not.
    case between(Double, inclusive: Bool, Double)

    public var description: String {
        switch self {
        case .wholeAtLeast(let minimum): "a whole number ≥ \(minimum)"
        case .wholeAtMost(let maximum): "a whole number ≤ \(maximum)"
        case .atLeast(let minimum): "a number ≥ \(Self.format(minimum))"
        case .above(let minimum): "a number > \(Self.format(minimum))"
        case .atMost(let maximum): "a number ≤ \(Self.format(maximum))"
        case .wholeBetween(let minimum, let maximum): "a whole number from \(minimum) to \(maximum)"
        case .between(let minimum, true, let maximum): "a number from \(Self.format(minimum)) to \(Self.format(maximum))"
        case .between(let minimum, false, let maximum): "a number > \(Self.format(minimum)) and ≤ \(Self.format(maximum))"
        }
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

extension UsageError: Equatable {
    /// Same case and same values; inner errors are equal when they are of one
    /// `Equatable` type and `==` (an error of a type that is not `Equatable` equals none).
    public static func == (left: UsageError, right: UsageError) -> Bool {
        switch (left, right) {
        case let (.unknownCommand(a, b, c, d), .unknownCommand(e, f, g, h)): a == e && b == f && c == g && d == h
        case let (.unknownOption(a, b, c), .unknownOption(d, e, f)): a == d && b == e && c == f
        case let (.unexpectedArgument(a, b, c), .unexpectedArgument(d, e, f)): a == d && b == e && c == f
        case let (.missingArgument(a, b), .missingArgument(c, d)): a == c && b == d
        case let (.unexpectedValue(a, b), .unexpectedValue(c, d)): a == c && b == d
        case let (.missingValue(a), .missingValue(b)): a == b
        case let (.badNumber(a, b, c), .badNumber(d, e, f)): a == d && b == e && c == f
        case let (.notOneOf(a, b, c), .notOneOf(d, e, f)): a == d && b == e && c == f
        case let (.malformed(a, b, c), .malformed(d, e, f)): a == d && b == e && c == f
        case let (.invalidValue(a, b), .invalidValue(c, d)): a == c && equal(b, d)
        case let (.invalidSpecification(a, b), .invalidSpecification(c, d)): a == c && equal(b, d)
        case let (.repeated(a, b), .repeated(c, d)): a == c && b == d
        case let (.unknownName(a, b, c), .unknownName(d, e, f)): a == d && b == e && c == f
        case let (.conflicting(a, b, c), .conflicting(d, e, f)): a == d && b == e && c == f
        case let (.together(a, b), .together(c, d)): a == c && b == d
        case let (.requires(a, b, c, d), .requires(e, f, g, h)): a == e && b == f && c == g && d == h
        case let (.notApplicable(a, b, c, d), .notApplicable(e, f, g, h)): a == e && b == f && c == g && d == h
        case let (.invalidArgument(a, b, c), .invalidArgument(d, e, f)): a == d && b == e && equal(c, f)
        default: false
        }
    }

    private static func equal(_ left: any Error & Sendable, _ right: any Error & Sendable) -> Bool {
        guard let left = left as? any Equatable else { return false }
        return left.isEqual(to: right)
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self).map { $0 == self } ?? false }
}
