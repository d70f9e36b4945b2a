import Foundation

/// Lines of standard input as an `AsyncStream`, read on a dedicated thread
/// (a blocking read must not occupy a Swift concurrency thread). The stream
/// ends at end of input. Lines longer than 1 MiB are cut into pieces.
/// Empty lines are skipped unless `keepingEmptyLines` (for readers that
/// number lines).
public enum StandardInputLines {
    public static func stream(fileDescriptor: Int32 = 0, keepingEmptyLines: Bool = false) -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                for byte in buffer[0..<count] {
                    if byte == UInt8(ascii: "\n") || pending.count >= 1 << 20 {
                        if !pending.isEmpty || keepingEmptyLines { continuation.yield(pending) }
                        pending.removeAll(keepingCapacity: true)
                        if byte != UInt8(ascii: "\n") { pending.append(byte) }
                    } else {
                        pending.append(byte)
                    }
                }
            }
            if !pending.isEmpty { continuation.yield(pending) }
            continuation.finish()
        }
        thread.name = "entitystream-stdin"
        thread.start()
        return stream
    }
}
