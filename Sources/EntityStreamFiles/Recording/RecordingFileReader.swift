#if canImport(Glibc)
import Glibc
#endif
import EntityStreamCore

/// Reads a recording file in bounded chunks (256 KiB by default) and hands its
/// messages out in batches (see ``RecordingChunkParser``): memory stays the
/// size of a chunk and a batch, whatever the file's size.
///
/// The recording reader of `EntityStreamFiles`, the module that does file I/O: plain `read(2)` on a regular
/// file (page-cache reads; nothing here waits on a peer). ``init(path:chunkSize:)``
/// throws ``RecordingError`` when the file cannot be opened; ``read(into:minimum:)``
/// when it cannot be read or refuses to parse (see ``RecordingChunkParser``:
/// an invalid array, an over-long line; a malformed recording line is not
/// thrown but handed out with its problem). ``rewind()`` starts over
/// (for `--loop`). Used by one task at a time; closes its descriptor when released.
public final class RecordingFileReader {
    public let path: String
    private let descriptor: Int32
    private var parser: RecordingChunkParser
    private var chunk: [UInt8]
    private var atEnd = false

    public init(path: String, chunkSize: Int = 256 << 10) throws(RecordingError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
        var status = stat()
        if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw .isDirectory(path: path)
        }
        parser = RecordingChunkParser()
        chunk = [UInt8](repeating: 0, count: max(chunkSize, 4096))
    }

    deinit { close(descriptor) }

    /// The file's layout, once the first content has been read.
    public var layout: RecordingFile.Layout? { parser.layout }
    /// The recording's header, once read.
    public var header: RecordingHeader? { parser.header }

    /// A batch stops growing once its messages hold this many bytes, however
    /// few they are: large messages (texts of hundreds of KB) never pile up
    /// by the thousand.
    public static let batchByteLimit = 4 << 20

    /// Appends messages to `batch` until it holds at least `minimum`, or at
    /// least ``batchByteLimit`` bytes, or the file ends. Returns false once
    /// the file has ended (the batch may still hold its last messages).
    @discardableResult
    public func read(into batch: inout RecordingChunkParser.Batch, minimum: Int) throws(RecordingError) -> Bool {
        while !atEnd && batch.count < minimum && batch.bytes.count < Self.batchByteLimit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, errno: errno)
            }
            atEnd = count == 0
            let isLast = atEnd
            let outcome = chunk.withUnsafeBytes { all in
                Result { () throws(RecordingError) in
                    try parser.append(UnsafeRawBufferPointer(rebasing: all[0..<count]), isLast: isLast, into: &batch)
                }
            }
            try outcome.get()
        }
        return !atEnd
    }

    /// Starts again from the first byte.
    public func rewind() throws(RecordingError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw .unreadableAgain(path: path, errno: errno)
        }
        parser = RecordingChunkParser(maximumMessageBytes: parser.maximumMessageBytes)
        atEnd = false
    }
}
