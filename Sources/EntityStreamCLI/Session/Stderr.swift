import EntityStream
import Foundation

/// Writing to standard error: logs, banners and progress (stdout carries
/// only JSON lines). A closed or failing stderr is ignored: there is nowhere
/// left to report it, and the program's work goes on.
enum Stderr {
    static func line(_ text: String) {
        write(text + "\n")
    }

    static func write(_ text: String) {
        try? FileDescriptorOutput.standardError.write(text)
    }

    static var isTerminal: Bool { isatty(2) == 1 }
}
