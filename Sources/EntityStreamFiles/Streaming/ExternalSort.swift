#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes an ``ExternalSorter`` writes for one element of a spilled run:
/// fixed-width little-endian integers, doubles by their bit pattern (so a
/// value reads back exactly, NaN and -0 included), strings as a length and
/// their UTF-8.
public struct SpillWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    public mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func double(_ value: Double) { int(Int64(bitPattern: value.bitPattern)) }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            int(Int64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Writes `value` over the 8 bytes at `offset` (written before by ``int(_:)``).
    mutating func overwriteInt(at offset: Int, with value: Int64) {
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Int64.self) }
    }
}

/// Reads what a ``SpillWriter`` wrote, in the same order; a read past the
/// record's end or a length out of range throws (a run file is never
/// trusted to be whole).
public struct SpillReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    public mutating func byte() throws(ExternalSortError) -> UInt8 {
        guard position < bytes.count else { throw .corrupt("a record ends early") }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func int() throws(ExternalSortError) -> Int64 {
        guard bytes.count - position >= 8 else { throw .corrupt("a record ends early") }
        defer { position += 8 }
        return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: Int64.self))
    }

    public mutating func double() throws(ExternalSortError) -> Double { Double(bitPattern: UInt64(bitPattern: try int())) }

    public mutating func string() throws(ExternalSortError) -> String {
        let count = try int()
        guard count >= 0, count <= bytes.count - position else { throw .corrupt("a string longer than its record") }
        defer { position += Int(count) }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<position + Int(count)]), as: UTF8.self)
    }
}

/// An element an ``ExternalSorter`` can hold in memory and spill to a run file.
public protocol Spillable: Sendable {
    /// About how many bytes the element holds in memory (its heap storage
    /// included): what the sorter counts against its run size.
    var residentBytes: Int { get }
    /// Writes the element so that ``unspill(from:)`` gives it back equal.
    func spill(into writer: inout SpillWriter)
    static func unspill(from reader: inout SpillReader) throws(ExternalSortError) -> Self
}

/// Why an external sort failed: a temporary file could not be made,
/// written or read back.
public enum ExternalSortError: Error, Equatable, CustomStringConvertible {
    case temporaryFile(directory: String, errno: Int32)
    case write(errno: Int32)
    case read(errno: Int32)
    case corrupt(String)

    public var description: String {
        switch self {
        case .temporaryFile(let directory, let code):
            return "cannot make a temporary file in \(directory) for sorting: \(String(cString: strerror(code)))"
        case .write(let code): return "cannot write a temporary sort file: \(String(cString: strerror(code)))"
        case .read(let code): return "cannot read a temporary sort file: \(String(cString: strerror(code)))"
        case .corrupt(let what): return "a temporary sort file is damaged: \(what)"
        }
    }
}

/// Sorts more elements than memory should hold: elements are gathered in
/// memory until they hold about `runBytes`, then sorted and written to a
/// temporary file (a sorted run); ``finish(batchSize:_:)`` merges the runs
/// and what is still in memory (a k-way merge on a heap), so memory stays
/// near `runBytes` plus one read buffer per run, whatever the count.
///
/// The order is `precedes`, then arrival (a stable sort: of two elements
/// neither precedes, the one appended first comes first), the same order
/// as a stable in-memory sort of everything. With a `limit`, only the
/// first `limit` elements are wanted: memory is cut back to them whenever
/// it holds twice as many or outgrows `runBytes` (a bounded top-k, with no
/// files unless the `limit` elements kept outgrow half of `runBytes`), each
/// run holds at most `limit`, and the merge stops after them.
///
/// The temporary files are unlinked as soon as they are made, so they are
/// gone whatever happens (an error, a cancelled task, a killed process);
/// their descriptors are closed when ``finish(batchSize:_:)`` returns or
/// throws, or the sorter is released.
///
/// Runs are merged as a tree of fan-in ``fanIn``: a run written from memory
/// is of level 0, and whenever `fanIn` runs of one level exist they are
/// merged into one run of the next level. So each element is written once
/// per level, about `1 + log_fanIn(runs)` times in all (O(n log_k runs)),
/// and at most `fanIn - 1` runs of each level stay open. ``finish(batchSize:_:)``
/// first merges the shortest runs until at most `fanIn` sources remain
/// (memory counted), then merges those as it delivers. Blocking file I/O
/// runs on the calling thread: reads and writes go to the page cache in
/// 256 KiB blocks.
public final class ExternalSorter<Element: Spillable> {
    /// The default fan-in: the most runs merged at once.
    public static var maximumFanIn: Int { 64 }
    static var blockSize: Int { 256 << 10 }

    public let runBytes: Int
    public let limit: Int?
    public let directory: String
    /// The most runs merged at once (at least 2).
    public let fanIn: Int
    private let precedes: (Element, Element) -> Bool
    private var buffer: [Entry] = []
    private var bufferBytes = 0
    private var sequence: Int64 = 0
    private var runs: [Run] = []
    /// The bytes of the run being written, reused from run to run.
    private var writer = SpillWriter()
    /// How many runs were written to temporary files (merged runs included).
    public private(set) var runsWritten = 0
    /// How many records were written to temporary files, merges included:
    /// what the merge tree bounds (about elements × (1 + levels)).
    public private(set) var recordsWritten = 0

    /// - Parameters:
    ///   - runBytes: the bytes of elements (``Spillable/residentBytes``) held before a run is written.
    ///   - limit: only the first `limit` elements are wanted (nil: all).
    ///   - directory: where the temporary files are made.
    ///   - fanIn: the most runs merged at once (at least 2).
    ///   - precedes: a strict weak order.
    public init(runBytes: Int, limit: Int? = nil, directory: String = ExternalSorterDefaults.temporaryDirectory,
                fanIn: Int = ExternalSorter.maximumFanIn, precedes: @escaping (Element, Element) -> Bool) {
        self.runBytes = max(1, runBytes)
        self.limit = limit.map { max(0, $0) }
        self.directory = directory
        self.fanIn = max(2, fanIn)
        self.precedes = precedes
    }

    deinit {
        for run in runs { close(run.descriptor) }
    }

    /// Adds an element (after every element added before it).
    /// - Throws: ``ExternalSortError`` when a run cannot be written.
    public func append(_ element: Element) throws(ExternalSortError) {
        buffer.append(Entry(sequence: sequence, element: element))
        sequence += 1
        bufferBytes += element.residentBytes + MemoryLayout<Entry>.stride
        if bufferBytes > runBytes {
            // Cut back to the limit; write a run only when that still holds more than half the run size.
            if let limit, buffer.count > limit { compact(to: limit) }
            if bufferBytes > runBytes / 2 { try spill() }
        } else if let limit, buffer.count >= 2 * max(limit, 512) {
            compact(to: limit)
        }
    }

    /// Hands the elements to `deliver` in order, `batchSize` at a time
    /// (the first `limit` when there is one), then closes the run files.
    /// - Throws: ``ExternalSortError`` for a run that cannot be read, or what `deliver` threw.
    public func finish(batchSize: Int = 1024, _ deliver: ([Element]) async throws -> Void) async throws {
        defer {
            for run in runs { close(run.descriptor) }
            runs = []
        }
        sortBuffer()
        if let limit, buffer.count > limit { buffer.removeLast(buffer.count - limit) }
        // At most `fanIn` sources in the last merge, the memory among them.
        let sources = { self.runs.count + (self.buffer.isEmpty ? 0 : 1) }
        while sources() > fanIn {
            let shortest = runs.indices.sorted { runs[$0].length < runs[$1].length }
            try merge(Array(shortest.prefix(min(fanIn, sources() - fanIn + 1))), level: Int.max)
        }
        var batch: [Element] = []
        batch.reserveCapacity(batchSize)
        var merge = try Merge(runs: runs, memory: buffer, precedes: precedes)
        buffer = []
        bufferBytes = 0
        var delivered = 0
        while limit.map({ delivered < $0 }) ?? true, let entry = try merge.next() {
            batch.append(entry.element)
            delivered += 1
            if batch.count == batchSize {
                try await deliver(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await deliver(batch) }
    }

    // MARK: Runs

    struct Entry {
        var sequence: Int64
        var element: Element
    }

    /// A sorted run in an unlinked temporary file.
    struct Run {
        var descriptor: Int32
        var length: Int
        /// 0 for a run written from memory; one more than its sources' for a merged one.
        var level = 0
    }

    private func ordered(_ a: Entry, _ b: Entry) -> Bool {
        if precedes(a.element, b.element) { return true }
        if precedes(b.element, a.element) { return false }
        return a.sequence < b.sequence
    }

    private func sortBuffer() {
        buffer.sort(by: ordered)
    }

    /// Keeps the first `limit` entries in memory.
    private func compact(to limit: Int) {
        sortBuffer()
        guard buffer.count > limit else { return }
        buffer.removeLast(buffer.count - limit)
        bufferBytes = buffer.reduce(0) { $0 + $1.element.residentBytes + MemoryLayout<Entry>.stride }
    }

    private func spill() throws(ExternalSortError) {
        sortBuffer()
        if let limit, buffer.count > limit { buffer.removeLast(buffer.count - limit) }
        var index = 0
        let run = try writeRun(level: 0) { () throws(ExternalSortError) -> Entry? in
            guard index < buffer.count else { return nil }
            defer { index += 1 }
            return buffer[index]
        }
        buffer.removeAll(keepingCapacity: true)
        bufferBytes = 0
        runs.append(run)
        // A full level merges into one run of the next, which may fill that one.
        var level = 0
        while true {
            let full = runs.indices.filter { runs[$0].level == level }
            guard full.count >= fanIn else { return }
            try merge(full, level: level + 1)
            level += 1
        }
    }

    /// Merges the runs at `indices` into one run of `level` (the first
    /// `limit` entries only), which replaces them.
    private func merge(_ indices: [Int], level: Int) throws(ExternalSortError) {
        let sources = indices.map { runs[$0] }
        var merge = try Merge(runs: sources, memory: [], precedes: precedes)
        var written = 0
        let merged = try writeRun(level: level) { () throws(ExternalSortError) -> Entry? in
            if let limit, written >= limit { return nil }
            written += 1
            return try merge.next()
        }
        for source in sources { close(source.descriptor) }
        let taken = Set(indices)
        runs = runs.indices.filter { !taken.contains($0) }.map { runs[$0] }
        runs.append(merged)
    }

    /// Writes the entries `next` gives, in order, to a new run file of `level`:
    /// each record is its length, its sequence and its element, gathered in
    /// one reused buffer and written a block at a time.
    private func writeRun(level: Int, _ next: () throws(ExternalSortError) -> Entry?) throws(ExternalSortError) -> Run {
        let descriptor = try Self.temporaryFile(in: directory)
        let output = FileDescriptorOutput(fileDescriptor: descriptor)
        var length = 0
        var records = 0
        writer.removeAll()
        func flush() throws(ExternalSortError) {
            do throws(FileDescriptorOutput.Failure) {
                try output.write(writer.bytes)
            } catch {
                throw .write(errno: error.errorNumber)
            }
            length += writer.bytes.count
            writer.removeAll()
        }
        do {
            while let entry = try next() {
                let start = writer.bytes.count
                writer.int(0)   // the length, filled in below
                writer.int(entry.sequence)
                entry.element.spill(into: &writer)
                writer.overwriteInt(at: start, with: Int64(writer.bytes.count - start - 8))
                records += 1
                if writer.bytes.count >= Self.blockSize { try flush() }
            }
            try flush()
        } catch {
            close(descriptor)
            throw error
        }
        runsWritten += 1
        recordsWritten += records
        return Run(descriptor: descriptor, length: length, level: level)
    }

    /// A new file in `directory`, open for reading and writing, already unlinked.
    static func temporaryFile(in directory: String) throws(ExternalSortError) -> Int32 {
        var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
        template.append(contentsOf: Array("entitystream-sort-XXXXXX".utf8CString))
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .temporaryFile(directory: directory, errno: errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return descriptor
    }

    // MARK: Merge

    /// Reads one run's records in order, a block at a time.
    struct RunReader {
        let run: Run
        var offset = 0
        var block: [UInt8] = []
        var position = 0

        init(_ run: Run) { self.run = run }

        mutating func next() throws(ExternalSortError) -> Entry? {
            guard let header = try take(8) else { return nil }
            let length = header.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
            guard length >= 8, length <= run.length else { throw .corrupt("a record of \(length) bytes") }
            guard let record = try take(Int(length)) else { throw .corrupt("the last record ends early") }
            let decoded = record.withUnsafeBytes { bytes -> Result<Entry, ExternalSortError> in
                var reader = SpillReader(bytes: bytes)
                do throws(ExternalSortError) {
                    let sequence = try reader.int()
                    return .success(Entry(sequence: sequence, element: try Element.unspill(from: &reader)))
                } catch {
                    return .failure(error)
                }
            }
            return try decoded.get()
        }

        /// The next `count` bytes, nil at the run's end.
        private mutating func take(_ count: Int) throws(ExternalSortError) -> ArraySlice<UInt8>? {
            if block.count - position < count {
                guard offset < run.length || position < block.count else { return nil }
                block.removeFirst(position)
                position = 0
                let want = max(ExternalSorter.blockSize, count - block.count)
                let readable = min(want, run.length - offset)
                if readable > 0 {
                    let start = block.count
                    block.append(contentsOf: repeatElement(0, count: readable))
                    var done = 0
                    while done < readable {
                        let got = block.withUnsafeMutableBytes { pread(run.descriptor, $0.baseAddress! + start + done, readable - done, off_t(offset + done)) }
                        if got < 0 {
                            if errno == EINTR { continue }
                            throw .read(errno: errno)
                        }
                        if got == 0 { throw .corrupt("the file is shorter than written") }
                        done += got
                    }
                    offset += readable
                }
                guard block.count >= count else {
                    if block.isEmpty { return nil }
                    throw .corrupt("the last record ends early")
                }
            }
            defer { position += count }
            return block[position..<position + count]
        }
    }

    /// The k-way merge of sorted runs and one sorted array in memory: a
    /// binary heap of each source's next entry.
    struct Merge {
        var readers: [RunReader]
        var memory: [Entry]
        var memoryPosition = 0
        /// (entry, source): source `readers.count` is memory.
        var heap: [(entry: Entry, source: Int)] = []
        let precedes: (Element, Element) -> Bool

        init(runs: [Run], memory: [Entry], precedes: @escaping (Element, Element) -> Bool) throws(ExternalSortError) {
            readers = runs.map(RunReader.init)
            self.memory = memory
            self.precedes = precedes
            for source in 0...readers.count {
                if let entry = try pull(source) { push((entry, source)) }
            }
        }

        mutating func next() throws(ExternalSortError) -> Entry? {
            guard !heap.isEmpty else { return nil }
            let top = heap[0]
            if let entry = try pull(top.source) {
                heap[0] = (entry, top.source)
                siftDown(0)
            } else {
                let last = heap.removeLast()
                if !heap.isEmpty {
                    heap[0] = last
                    siftDown(0)
                }
            }
            return top.entry
        }

        private mutating func pull(_ source: Int) throws(ExternalSortError) -> Entry? {
            if source < readers.count { return try readers[source].next() }
            guard memoryPosition < memory.count else { return nil }
            defer { memoryPosition += 1 }
            return memory[memoryPosition]
        }

        private func less(_ a: Int, _ b: Int) -> Bool {
            let x = heap[a].entry, y = heap[b].entry
            if precedes(x.element, y.element) { return true }
            if precedes(y.element, x.element) { return false }
            return x.sequence < y.sequence
        }

        private mutating func push(_ item: (entry: Entry, source: Int)) {
            heap.append(item)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard less(child, parent) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var best = parent
                if left < heap.count, less(left, best) { best = left }
                if right < heap.count, less(right, best) { best = right }
                if best == parent { return }
                heap.swapAt(parent, best)
                parent = best
            }
        }
    }
}

/// Where an ``ExternalSorter`` makes its files unless told: `$TMPDIR`, else `/tmp`.
public enum ExternalSorterDefaults {
    public static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}
