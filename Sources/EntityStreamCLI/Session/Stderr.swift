import Foundation

/// Writing to standard error: logs, banners and progress (stdout carries
/// only JSON lines).
enum Stderr {
    static func line(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static var isTerminal: Bool { isatty(2) == 1 }
}
