import Foundation

/// Lines of standard input as an `AsyncStream`, read on a dedicated thread
/// (a blocking read must not occupy a Swift concurrency thread). The stream
/// ends at end of input. Each line is one whole command however long, up to
/// ``maximumLineLength`` bytes; a longer line is not kept and comes as
/// ``StandardInputLine/tooLong(byteCount:)`` (see ``InputLineSplitter``).
/// Empty lines are skipped unless `keepingEmptyLines` (for readers that
/// number lines).
public enum StandardInputLines {
    /// The longest command line taken: 16 MiB.
    public static let maximumLineLength = 16 << 20

    public static func stream(fileDescriptor: Int32 = 0, maximumLineLength: Int = maximumLineLength,
                              keepingEmptyLines: Bool = false) -> AsyncStream<StandardInputLine> {
        let (stream, continuation) = AsyncStream.makeStream(of: StandardInputLine.self)
        let thread = Thread {
            var splitter = InputLineSplitter(maximumLength: maximumLineLength, keepingEmptyLines: keepingEmptyLines)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                for line in splitter.append(buffer[0..<count]) { continuation.yield(line) }
            }
            if let last = splitter.finish() { continuation.yield(last) }
            continuation.finish()
        }
        thread.name = "entitystream-stdin"
        thread.start()
        return stream
    }
}
