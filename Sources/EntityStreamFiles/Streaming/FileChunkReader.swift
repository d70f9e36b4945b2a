#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EntityStreamFeatures

/// One piece of a file that ends at a record boundary: whole records only,
/// so it can be parsed on its own, on any thread.
public struct FileChunk: Sendable {
    /// 0-based position among the file's chunks.
    public let index: Int
    /// The file offset of ``bytes``' first byte.
    public let offset: Int
    /// The chunk's bytes (whole records; the last chunk holds the rest of the file).
    public let bytes: [UInt8]
    /// True for the chunk that ends the file (or the range read).
    public let isLast: Bool

    public init(index: Int, offset: Int, bytes: [UInt8], isLast: Bool) {
        self.index = index
        self.offset = offset
        self.bytes = bytes
        self.isLast = isLast
    }
}

/// Where records end, for a format that can be split between records
/// without parsing what came before: CSV (``CSVRecordSplitter``) and
/// line-based JSON (``LineRecordSplitter``). A value type, asked once per
/// buffer; every buffer it is shown starts at a record boundary.
public protocol RecordSplitter: Sendable {
    /// The length of the longest prefix of `bytes` made of whole records
    /// (0 when no record ends in it yet), given that more bytes follow.
    func completePrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int
    /// Why no record ends within `bytes` (a buffer grown past the record
    /// limit): the message of the error that names it.
    func unfinishedRecord(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String
}

/// The index of the last `byte` in `start..<end`, searching backwards (glibc's
/// `memrchr` is not visible to Swift; records are short, so the search is too).
@inline(__always)
package func lastIndex(of byte: UInt8, in base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int? {
    var index = end
    while index > start {
        index -= 1
        if base[index] == byte { return index }
    }
    return nil
}

/// Splits line-based text (Esri JSON lines, GeoJSON text sequences,
/// recordings) after its last line feed: JSON texts never hold a raw line
/// feed, so every one ends a record.
public struct LineRecordSplitter: RecordSplitter {
    public init() {}

    public func completePrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress, let found = lastIndex(of: 0x0A, in: base, from: 0, to: bytes.count) else { return 0 }
        return found + 1
    }

    public func unfinishedRecord(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String {
        "a line longer than \(limit) bytes (the most one record may hold)"
    }
}

/// Splits CSV text between records exactly as ``CSVReader`` reads it, with
/// no parsing before the buffer: a buffer starts at a record's start, where
/// no quoted field is open, so the state of every byte after it is known.
///
/// A `"` opens a quoted field only at a field's start (the buffer's start,
/// or after `,`, CR or LF); inside one, `""` is a quote and a lone `"`
/// closes it; a line break outside quotes ends a record. A buffer without
/// any quote (the common case) is split after its last line break by one
/// `memrchr`; otherwise the quotes are visited with `memchr`, so the cost
/// stays near the speed of memory. A CR as the buffer's last byte is not
/// taken as a record's end (an LF may follow it in the next read). A value type.
public struct CSVRecordSplitter: RecordSplitter {
    public init() {}

    private static let quote: UInt8 = 0x22, comma: UInt8 = 0x2C, cr: UInt8 = 0x0D, lf: UInt8 = 0x0A

    public func completePrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        let n = bytes.count
        guard memchr(base, Int32(Self.quote), n) != nil else { return Self.lastLineEnd(base, from: 0, to: n, total: n) ?? 0 }
        var best = 0
        var position = 0
        while position < n {
            // Outside quotes: the next quote that opens a field.
            var opening: Int?
            var search = position
            while search < n {
                guard let found = memchr(base + search, Int32(Self.quote), n - search) else { break }
                let q = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
                if q == 0 || base[q - 1] == Self.comma || base[q - 1] == Self.cr || base[q - 1] == Self.lf {
                    opening = q
                    break
                }
                search = q + 1   // a quote inside an unquoted field is a plain character
            }
            let outsideEnd = opening ?? n
            if let end = Self.lastLineEnd(base, from: position, to: outsideEnd, total: n) { best = end }
            guard let open = opening else { break }
            // Inside the quoted field: its closing quote.
            var inside = open + 1
            var closed = false
            while inside < n {
                guard let found = memchr(base + inside, Int32(Self.quote), n - inside) else { break }
                let q = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
                if q + 1 < n, base[q + 1] == Self.quote {
                    inside = q + 2
                    continue
                }
                if q + 1 == n { break }   // "… or the start of `""`: the next read tells
                inside = q + 1
                closed = true
                break
            }
            guard closed else { break }
            position = inside
        }
        return best
    }

    /// The end (just after it) of the last record terminator in `start..<end`, or nil.
    private static func lastLineEnd(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, total: Int) -> Int? {
        guard end > start else { return nil }
        if let position = lastIndex(of: lf, in: base, from: start, to: end) {
            // A lone CR after the last LF also ends a record.
            if let cr = lastLoneCR(base, from: position + 1, to: end, total: total) { return cr }
            return position + 1
        }
        return lastLoneCR(base, from: start, to: end, total: total)
    }

    private static func lastLoneCR(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, total: Int) -> Int? {
        guard let position = lastIndex(of: cr, in: base, from: start, to: end) else { return nil }
        // A CR last in the buffer may be the first half of a CRLF.
        guard position + 1 < total else {
            return position > start ? lastLoneCR(base, from: start, to: position, total: total) : nil
        }
        return base[position + 1] == lf ? nil : position + 1
    }

    public func unfinishedRecord(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String {
        "a record longer than \(limit) bytes (the most one record may hold; a quoted field that is never closed reads on to the end of the file)"
    }
}

/// Reads a file from start to end in chunks of about ``chunkSize`` bytes
/// that end at record boundaries (``RecordSplitter``), holding at most one
/// unfinished record between reads: what lets an analysis read a file of any
/// size in bounded memory. A record longer than ``maximumRecordBytes``
/// throws ``FeatureLoadError`` naming its offset rather than growing without
/// bound. A file that ends before the range read (it was cut or replaced by
/// a shorter one, before or during the read) throws
/// ``FeatureLoadError/Reason/shrank(size:expected:)`` rather than giving
/// fewer records; one that grows is read to the range's end (by default its
/// size when opened). Blocking I/O: call it from a thread that may block. Not thread-safe.
public final class FileChunkReader {
    public let path: String
    public let chunkSize: Int
    public let maximumRecordBytes: Int
    /// The file's size when opened (regular files only).
    public let fileSize: Int
    private let descriptor: Int32
    private let splitter: any RecordSplitter
    private var carry: [UInt8] = []
    private var position: Int
    private let end: Int
    private var nextIndex = 0
    private var finished = false

    /// Opens `path` to read `start..<end` (default: the whole file as it is now) in chunks.
    /// `start` must be a record boundary (0, or the end of an earlier chunk); an `end`
    /// beyond the file's size (a file shorter than when the read was planned) throws
    /// ``FeatureLoadError/Reason/shrank(size:expected:)``.
    public init(path: String, splitter: any RecordSplitter, chunkSize: Int, maximumRecordBytes: Int = 64 << 20,
                start: Int = 0, end: Int? = nil) throws(FeatureLoadError) {
        func failure(_ operation: FeatureLoadError.FileOperation) -> FeatureLoadError {
            FeatureLoadError(file: path, .system(operation, errno: errno))
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure(.open) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = failure(.readSize)
            close(descriptor)
            throw error
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw FeatureLoadError(file: path, .notRegularFile)
        }
        self.path = path
        self.descriptor = descriptor
        self.splitter = splitter
        self.chunkSize = max(1, chunkSize)
        self.maximumRecordBytes = max(self.chunkSize, maximumRecordBytes)
        fileSize = Int(status.st_size)
        if let end, end > fileSize {
            close(descriptor)
            throw FeatureLoadError(file: path, .shrank(size: fileSize, expected: end))
        }
        position = min(max(0, start), fileSize)
        self.end = end ?? fileSize
        #if os(Linux)
        _ = posix_fadvise(descriptor, off_t(position), 0, POSIX_FADV_SEQUENTIAL)
        #endif
    }

    deinit { close(descriptor) }

    /// The file offset of the next byte a chunk will start with.
    public var offset: Int { position - carry.count }

    /// The next chunk, or nil after the last one.
    public func next() throws(FeatureLoadError) -> FileChunk? {
        guard !finished else { return nil }
        var buffer = carry
        carry = []
        let start = position - buffer.count
        while true {
            let wanted = min(chunkSize, end - position)
            if wanted > 0 {
                let before = buffer.count
                buffer.reserveCapacity(before + wanted)
                let count = try readAppending(&buffer, count: wanted)
                position += count
                if count < wanted {
                    finished = true
                    throw FeatureLoadError(file: path, .shrank(size: position, expected: end))
                }
            }
            if position >= end {
                finished = true
                guard !buffer.isEmpty else { return nil }
                defer { nextIndex += 1 }
                return FileChunk(index: nextIndex, offset: start, bytes: buffer, isLast: true)
            }
            let split = buffer.withUnsafeBufferPointer { splitter.completePrefix($0) }
            if split > 0 {
                carry = Array(buffer[split...])
                buffer.removeSubrange(split...)
                defer { nextIndex += 1 }
                return FileChunk(index: nextIndex, offset: start, bytes: buffer, isLast: false)
            }
            if buffer.count > maximumRecordBytes {
                finished = true
                let message = buffer.withUnsafeBufferPointer { splitter.unfinishedRecord($0, limit: maximumRecordBytes) }
                throw FeatureLoadError(file: path, .unfinishedRecord(offset: start, message))
            }
        }
    }

    /// Reads up to `count` bytes onto the end of `buffer`; returns how many (fewer only at the end of the file).
    private func readAppending(_ buffer: inout [UInt8], count: Int) throws(FeatureLoadError) -> Int {
        let before = buffer.count
        var filled = 0
        var failed: Int32 = 0
        buffer.append(contentsOf: repeatElement(0, count: count))
        buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            while filled < count {
                let got = read(descriptor, base + before + filled, count - filled)
                if got < 0 {
                    if errno == EINTR { continue }
                    failed = errno
                    return
                }
                if got == 0 { break }
                filled += got
            }
        }
        buffer.removeLast(count - filled)
        if failed != 0 { throw FeatureLoadError(file: path, .system(.read, errno: failed)) }
        return filled
    }
}
