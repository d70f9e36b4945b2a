import EntityStreamCore
import Foundation
import EntityStreamModel
import EntityStreamFiles

/// Writing to standard error: logs, banners and progress (stdout carries
/// only JSON lines). ``line(_:)`` writes exactly one line — line breaks in
/// the text (an HTTP body, a multi-line error) become spaces — so each
/// failure is one line; ``block(_:)`` keeps the lines of a banner. Both mask
/// credentials (``Redaction``). A closed or failing stderr is ignored: there
/// is nowhere left to report it, and the program's work goes on.
public enum Stderr {
    public static func line(_ text: String) {
        write(OneLine.text(Redaction.redact(text), maximumLength: 2000) + "\n")
    }

    /// Several lines as given (a banner, not a failure).
    public static func block(_ text: String) {
        write(Redaction.redact(text) + "\n")
    }

    public static func write(_ text: String) {
        try? FileDescriptorOutput.standardError.write(text)
    }

    public static var isTerminal: Bool { isatty(2) == 1 }
}
