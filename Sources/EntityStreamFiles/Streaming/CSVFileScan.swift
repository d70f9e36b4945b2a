import EntityStreamModel
import EntityStreamFeatures

/// What a streamed aggregation (``CSVFileScan/aggregate(neededFields:filter:workers:makeSink:consume:)``)
/// feeds: one per chunk, made and fed on a worker thread, then handed on in file order.
public protocol FeatureRowSink: Sendable {
    /// Takes one row (values by field index; valid only during the call).
    mutating func take(_ row: FeatureTableRowValues)
}

/// A CSV file read as a sequence of small ``FeatureTable``s, one per chunk
/// of about ``chunkSize`` bytes, parsed on several threads and handed to
/// the caller in file order: how `statistics` and `query` answer over a CSV
/// file of any size in bounded memory (the file is never held whole).
///
/// Every chunk's table has the layout the whole-file loader
/// (``FeatureFile/load(path:options:)``) would give the file: the same
/// schema, values, coordinates, time values and object ids (numbered on
/// across chunks), the same errors with the file's line numbers. The
/// layout depends on the values of the whole file (a column is an integer
/// only if every value is), so it is first decided from the file's first
/// chunk, and every scan gathers the evidence of the columns it reads;
/// when that evidence calls for another layout of those columns, the scan
/// answers ``Outcome/layoutChanged`` and the caller starts over (with the
/// corrected ``schema``) before using anything it was given.
///
/// Differences from the whole-file loader: ``FeatureLoadOptions/maximumFileSize``
/// does not apply (nothing is held whole); an object-id column's values are
/// checked for repeats within each chunk only (a set of every id of a file
/// larger than memory would not fit it either).
///
/// Memory: about `(2 × workers + 2)` chunks of text plus, per worker, one
/// chunk's table, whatever the file's size. Blocking reads and parsing run
/// on threads of their own, never on the cooperative pool. One scan at a
/// time per instance. Every scan reads the file up to ``fileSize`` (its
/// size when opened), so a file that grows gives the same rows each time.
public final class CSVFileScan: @unchecked Sendable {
    /// What a scan ended with.
    public enum Outcome: Sendable, Equatable {
        /// Every chunk was read; `rows` is the file's row count.
        case finished(rows: Int)
        /// The file's values call for another layout of the columns read
        /// (``schema`` now holds it): discard what the scan gave and scan again.
        case layoutChanged
    }

    public let path: String
    public let chunkSize: Int
    /// The file's size in bytes when opened.
    public let fileSize: Int
    /// How far the scan under way has got (for progress reports).
    public let position = ScanPosition()
    private let options: FeatureLoadOptions
    private let names: [String]
    private let headerLine: Int
    private let tableName: String
    private var layout: CSVLayout
    /// True when the first chunk was the whole file (its layout is certain).
    private let sampledWholeFile: Bool
    /// What the first chunk's values said about every column.
    private let sampleEvidence: CSVEvidence
    /// Source columns whose layout a whole-file pass has confirmed (``verifyLayout(neededFields:workers:)``).
    private var verifiedColumns: Set<Int> = []

    /// The default chunk size: large enough that per-chunk work (compiling
    /// the query, merging groups) is negligible, small enough that the
    /// chunks in flight stay a few tens of megabytes.
    public static let defaultChunkSize = 4 << 20

    /// The schema of the tables a scan gives (the current layout).
    public var schema: Schema { layout.plan.schema }
    /// True when the tables have point geometry.
    public var hasGeometry: Bool { layout.xColumn != nil }
    /// True when object ids are numbered 1, 2, 3… in file order (no
    /// object-id column), so file order is object-id order.
    public var assignsObjectIDs: Bool { layout.plan.assignsObjectIDs }

    /// Opens `path` for streaming when it is a CSV file (by
    /// ``FeatureLoadOptions/format`` or its text); nil for any other format
    /// (the caller loads those whole). Reads the first chunk to decide the
    /// layout.
    /// - Throws: ``FeatureLoadError`` for a file that cannot be read, a
    ///   binary file, or a bad header or first chunk.
    public static func open(path: String, options: FeatureLoadOptions = FeatureLoadOptions(),
                            chunkSize: Int = CSVFileScan.defaultChunkSize) throws(FeatureLoadError) -> CSVFileScan? {
        if let format = options.format, format != .csv { return nil }
        let reader = try FileChunkReader(path: path, splitter: CSVRecordSplitter(), chunkSize: chunkSize)
        let first = try reader.next() ?? FileChunk(index: 0, offset: 0, bytes: [], isLast: true)
        if let binary = FeatureFile.binaryKind(first.bytes) {
            throw FeatureLoadError(file: path, .binary(kind: binary))
        }
        if options.format == nil {
            // Only the start of the text is needed to tell CSV from JSON.
            let start = Array(first.bytes.prefix(4096))
            guard FeatureFileFormat.sniff(start, fileName: path) == .csv else { return nil }
        }
        return try CSVFileScan(path: path, options: options, first: first, fileSize: reader.fileSize, chunkSize: chunkSize)
    }

    private init(path: String, options: FeatureLoadOptions, first: FileChunk, fileSize: Int, chunkSize: Int) throws(FeatureLoadError) {
        self.path = path
        self.options = options
        self.fileSize = fileSize
        self.chunkSize = chunkSize
        tableName = options.name ?? FeatureFile.baseName(path)
        let mapping = options.mapping
        let sample = first.bytes.withUnsafeBufferPointer { bytes in
            Result { () throws(CSVError) -> ((names: [String], line: Int)?, CSVEvidence?) in
                guard let header = try CSVChunkParser.header(of: bytes) else { return (nil, nil) }
                let evidence = try CSVChunkParser.evidence(of: bytes, atFileStart: true, columnCount: header.names.count,
                                                           epochColumns: CSVLayout.epochColumns(header.names, mapping: mapping)).evidence
                return (header, evidence)
            }
        }
        let header: (names: [String], line: Int)?
        let evidence: CSVEvidence?
        do { (header, evidence) = try sample.get() } catch { throw FeatureLoadError(file: path, line: error.line, .csv(error.reason)) }
        guard let header, let evidence else {
            throw FeatureLoadError(file: path, .csv(.emptyText))
        }
        names = header.names
        headerLine = header.line
        layout = try CSVLayout(names: header.names, headerLine: header.line, evidence: evidence, mapping: mapping, file: path)
        sampledWholeFile = first.isLast
        sampleEvidence = evidence
    }

    /// What a worker made of one chunk.
    private enum ChunkOutcome<Partial: Sendable>: Sendable {
        case parsed(Partial, evidence: CSVEvidence?, lines: Int, rows: Int)
        case failed(CSVError)
    }

    /// Reads the whole file: each chunk's table (rows in file order, the
    /// fields not in `neededFields` null) goes to `process` on one of
    /// `workers` threads, and each result to `consume`, in file order, on
    /// the calling task.
    /// - Parameters:
    ///   - neededFields: schema indices of the fields the caller reads
    ///     (nil: all). Without a `filter`, the object id, time and
    ///     coordinate fields are always read.
    ///   - filter: when given, each chunk's table holds only the rows it
    ///     passes (numbered with their object ids in the file), and only the
    ///     fields it tests, `neededFields`, the object id and, when
    ///     `readsGeometry` or the filter tests it, the point are read: a
    ///     column read nowhere is not converted, so a bad value there (a
    ///     coordinate or a time that is not one) is no error, as in a query
    ///     engine that reads only the columns a query names. The filter must
    ///     be compiled for ``schema`` (``FeatureQueryEngine/rowFilter(_:on:)``
    ///     on ``emptyTable()``).
    /// - Throws: ``FeatureLoadError`` for the first bad record in file
    ///   order (its line in the file), or what `process` or `consume`
    ///   threw; `CancellationError` when the task is cancelled.
    public func scan<Partial: Sendable>(neededFields: Set<Int>? = nil, filter: FeatureRowFilter? = nil, readsGeometry: Bool = true,
                                        workers: Int = 2,
                                        process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                        consume: (Partial) async throws -> Void) async throws -> Outcome {
        try await scan(neededFields: neededFields, filter: filter, readsGeometry: readsGeometry, workers: workers, settlingEveryColumn: false,
                       process: process, consume: consume)
    }

    /// Reads the whole file as ``scan(neededFields:filter:readsGeometry:workers:process:consume:)``
    /// does (no filter, the point read) and, in the same pass, observes
    /// every column as ``verifyLayout(neededFields:workers:)`` with no
    /// `neededFields` does, then settles the layout of every column: later
    /// scans never answer ``Outcome/layoutChanged``. One read of the file
    /// where a layout pass and a scan take two. Answers
    /// ``Outcome/layoutChanged`` when the columns this scan converted had
    /// another layout than the one it used (discard what it gave and scan
    /// again: the layout is settled by then).
    public func scanSettlingLayout<Partial: Sendable>(neededFields: Set<Int>?, workers: Int = 2,
                                                      process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                                      consume: (Partial) async throws -> Void) async throws -> Outcome {
        try await scan(neededFields: neededFields, filter: nil, readsGeometry: true, workers: workers, settlingEveryColumn: true,
                       process: process, consume: consume)
    }

    private func scan<Partial: Sendable>(neededFields: Set<Int>?, filter: FeatureRowFilter?, readsGeometry: Bool, workers: Int,
                                         settlingEveryColumn: Bool,
                                         process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                         consume: (Partial) async throws -> Void) async throws -> Outcome {
        let numbersObjectIDs = layout.plan.assignsObjectIDs
        // A filter that tests assigned object ids runs once they are numbered, on the chunk's table.
        let late = numbersObjectIDs && filter?.fieldIndices.contains(layout.plan.objectIDFieldIndex) == true ? filter : nil
        var prepared = try prepare(neededFields: late == nil ? neededFields : neededFields?.union(late!.fieldIndices),
                                   filter: late == nil ? filter : nil, readsGeometry: readsGeometry || late?.readsGeometry == true)
        if settlingEveryColumn && !sampledWholeFile && !Set(names.indices).isSubset(of: verifiedColumns) {
            prepared.collect = true
            prepared.settled = settledColumns(nil)
            prepared.settlesEveryColumn = true
        }
        let setup = prepared
        let layout = self.layout, path = self.path
        let reader = try FileChunkReader(path: path, splitter: CSVRecordSplitter(), chunkSize: chunkSize, end: fileSize)
        let chunks = ChunkScan<ChunkOutcome<Partial>>(reader: reader, workers: workers) { chunk, context in
            try chunk.bytes.withUnsafeBufferPointer { bytes throws -> ChunkOutcome<Partial> in
                var parsed: CSVChunkParser.Parsed
                do throws(CSVError) {
                    parsed = try CSVChunkParser.rows(of: bytes, atFileStart: chunk.index == 0, layout: layout, into: setup.empty, needed: setup.needed,
                                                     collectEvidence: setup.collect, settled: setup.settled, selection: setup.selection,
                                                     shouldStop: { context.isStopped })
                } catch {
                    // Later chunks wait for this one's row count.
                    if numbersObjectIDs { _ = context.recordBase(records: 0) }
                    return .failed(error)
                }
                if numbersObjectIDs {
                    guard let base = context.recordBase(records: parsed.records) else { throw CancellationError() }
                    parsed.builder.numberAssignedObjectIDs(after: Int64(base), positions: parsed.positions)
                    if let late {
                        let table: FeatureTable
                        do throws(FeatureTableError) {
                            table = try parsed.builder.build().rows(passing: late, idsAfter: Int64(base), into: setup.empty)
                        } catch { throw FeatureLoadError(file: path, .table(error)) }
                        return .parsed(try process(table), evidence: parsed.evidence, lines: parsed.lines, rows: parsed.records)
                    }
                }
                let table = parsed.builder.build()
                return .parsed(try process(table), evidence: parsed.evidence, lines: parsed.lines, rows: parsed.records)
            }
        }
        return try await finish(chunks, setup: setup, consume: consume)
    }

    /// Reads the whole file like ``scan(neededFields:filter:readsGeometry:workers:process:consume:)``
    /// with a filter, without tables: each row the filter passes (its
    /// values by field, those of `neededFields` and the filter's read) goes
    /// straight to the sink of its chunk, made by `makeSink` on a worker
    /// thread, and each chunk's sink to `consume`, in file order. What
    /// statistics aggregate with (accumulators as sinks, merged in order).
    public func aggregate<Sink: FeatureRowSink>(neededFields: Set<Int>, filter: FeatureRowFilter, workers: Int = 2,
                                                makeSink: @escaping @Sendable () -> Sink,
                                                consume: (Sink) async throws -> Void) async throws -> Outcome {
        let plan = layout.plan
        if plan.assignsObjectIDs, neededFields.union(filter.fieldIndices).contains(plan.objectIDFieldIndex) {
            // Assigned object ids are numbered in tables, once the rows of the chunks before are counted.
            return try await scan(neededFields: neededFields, filter: filter, readsGeometry: false, workers: workers,
                                  process: { table in sinkTaking(everyRowOf: table, makeSink()) }, consume: consume)
        }
        let setup = try prepare(neededFields: neededFields, filter: filter, readsGeometry: false)
        let layout = self.layout
        let reader = try FileChunkReader(path: path, splitter: CSVRecordSplitter(), chunkSize: chunkSize, end: fileSize)
        let chunks = ChunkScan<ChunkOutcome<Sink>>(reader: reader, workers: workers) { chunk, context in
            chunk.bytes.withUnsafeBufferPointer { bytes -> ChunkOutcome<Sink> in
                var sink = makeSink()
                do throws(CSVError) {
                    let parsed = try CSVChunkParser.rows(of: bytes, atFileStart: chunk.index == 0, layout: layout, into: setup.empty,
                                                         needed: setup.needed, collectEvidence: setup.collect, settled: setup.settled,
                                                         selection: setup.selection, take: { sink.take($0) }, shouldStop: { context.isStopped })
                    return .parsed(sink, evidence: parsed.evidence, lines: parsed.lines, rows: parsed.records)
                } catch {
                    return .failed(error)
                }
            }
        }
        return try await finish(chunks, setup: setup, consume: consume)
    }

    /// What a scan reads and converts, decided from its arguments and the current layout.
    private struct Setup: Sendable {
        var selection: CSVRowSelection?
        /// Per column, whether it is read (nil: all).
        var needed: [Bool]?
        /// The columns whose layout the scan depends on.
        var read: Set<Int>
        /// Whether the scan gathers evidence (the layout of `read` is not yet certain).
        var collect: Bool
        /// Whether the evidence covers every column, whose layout the scan then settles.
        var settlesEveryColumn = false
        var settled: [Bool]
        var empty: FeatureTableBuilder
    }

    private func prepare(neededFields: Set<Int>?, filter: FeatureRowFilter?, readsGeometry: Bool) throws(FeatureLoadError) -> Setup {
        let plan = layout.plan
        let selection = filter.map { filter in
            // The time fields read are converted in every row: a bad time there is an error, pass or not.
            let timeRead = timeFields.filter { neededFields?.contains($0) ?? true }
            return CSVRowSelection(filter: filter, early: columns(of: filter.fieldIndices.union(timeRead)),
                                   late: columns(of: neededFields ?? Set(plan.schema.fields.indices)),
                                   readsPoint: readsGeometry || filter.readsGeometry)
        }
        let needed = selection.map { selection in names.indices.map { selection.early[$0] || selection.late[$0] } } ?? neededColumns(neededFields)
        let read = selection == nil ? readColumns(needed) : Set(names.indices.filter { needed?[$0] ?? true || isObjectIDColumn($0) })
        return Setup(selection: selection, needed: needed, read: read, collect: !sampledWholeFile && !read.isSubset(of: verifiedColumns),
                     settled: settledColumns(needed), empty: try layout.builder(name: tableName))
    }

    /// Hands the chunks' results to `consume` and settles the layout when the scan gathered evidence.
    private func finish<Partial: Sendable>(_ chunks: ChunkScan<ChunkOutcome<Partial>>, setup: Setup,
                                           consume: (Partial) async throws -> Void) async throws -> Outcome {
        var evidence = sampleEvidence
        let rows = try await deliver(chunks, evidence: &evidence, to: consume)
        guard setup.collect else { return .finished(rows: rows) }
        return try settle(evidence, read: setup.read, everyColumn: setup.settlesEveryColumn) ? .finished(rows: rows) : .layoutChanged
    }

    /// Reads the whole file once, checking every record's shape and
    /// observing the values of the columns a later ``scan(neededFields:workers:process:consume:)``
    /// with the same `neededFields` reads, and settles their layout (the
    /// ``schema`` may change): that scan then never answers
    /// ``Outcome/layoutChanged``, so its caller may write what it is given
    /// as it goes. Costs a parse of those columns, no tables.
    /// - Throws: ``FeatureLoadError`` for the first record with the wrong
    ///   number of fields or an unclosed quote, with its line in the file.
    public func verifyLayout(neededFields: Set<Int>? = nil, workers: Int = 2) async throws {
        let needed = neededColumns(neededFields)
        let read = readColumns(needed)
        guard !sampledWholeFile, !read.isSubset(of: verifiedColumns) else { return }
        let columns = names.count
        let settled = settledColumns(needed)
        let epochColumns = CSVLayout.epochColumns(names, mapping: options.mapping)
        let reader = try FileChunkReader(path: path, splitter: CSVRecordSplitter(), chunkSize: chunkSize, end: fileSize)
        let chunks = ChunkScan<ChunkOutcome<Void>>(reader: reader, workers: workers) { chunk, context in
            chunk.bytes.withUnsafeBufferPointer { bytes -> ChunkOutcome<Void> in
                do throws(CSVError) {
                    let found = try CSVChunkParser.evidence(of: bytes, atFileStart: chunk.index == 0, columnCount: columns, epochColumns: epochColumns,
                                                            settled: settled, shouldStop: { context.isStopped })
                    return .parsed((), evidence: found.evidence, lines: found.lines, rows: found.records)
                } catch {
                    return .failed(error)
                }
            }
        }
        var evidence = sampleEvidence
        _ = try await deliver(chunks, evidence: &evidence) { _ in }
        _ = try settle(evidence, read: read)
        verifiedColumns.formUnion(read)
    }

    /// Takes the chunks' outcomes in file order, merging their evidence
    /// into `evidence` and handing each result to `consume`; the first bad
    /// record throws with its line in the file. Returns the rows read.
    private func deliver<Partial: Sendable>(_ chunks: ChunkScan<ChunkOutcome<Partial>>, evidence: inout CSVEvidence,
                                            to consume: (Partial) async throws -> Void) async throws -> Int {
        defer { chunks.stop() }
        position.reset()
        var lines = 0
        var rows = 0
        while let delivery = try await chunks.next() {
            switch delivery.partial {
            case .failed(let error):
                throw FeatureLoadError(file: path, line: error.line.map { lines + $0 }, .csv(error.reason))
            case .parsed(let partial, let chunkEvidence, let chunkLines, let chunkRows):
                lines += chunkLines
                rows += chunkRows
                if let chunkEvidence { evidence.merge(chunkEvidence) }
                position.delivered(through: delivery.offset + delivery.byteCount, rows: chunkRows)
                try await consume(partial)
            }
        }
        return rows
    }

    /// A table of no rows with the scan's current layout (``schema``): what
    /// a caller compiles its filters against.
    public func emptyTable() throws(FeatureLoadError) -> FeatureTable {
        try layout.builder(name: tableName).build()
    }

    /// The schema indices of the start and end time fields.
    private var timeFields: Set<Int> {
        Set([layout.plan.startTimeFieldIndex, layout.plan.endTimeFieldIndex].compactMap { $0 })
    }

    private func isObjectIDColumn(_ column: Int) -> Bool {
        layout.plan.finalIndex(ofSource: column) == layout.plan.objectIDFieldIndex
    }

    /// Per source column, whether the caller reads it (nil: all).
    private func neededColumns(_ fields: Set<Int>?) -> [Bool]? {
        fields.map(columns(of:))
    }

    /// Per source column, whether its field is one of `fields`.
    private func columns(of fields: Set<Int>) -> [Bool] {
        names.indices.map { fields.contains(layout.plan.finalIndex(ofSource: $0)) }
    }

    /// The source columns whose type matters to a scan: those it reads,
    /// the time columns and the object-id column.
    private func readColumns(_ needed: [Bool]?) -> Set<Int> {
        let plan = layout.plan
        return Set(names.indices.filter {
            needed?[$0] ?? true || layout.isTimeColumn[$0] || plan.finalIndex(ofSource: $0) == plan.objectIDFieldIndex
        })
    }

    /// Columns whose values need not be observed: unread ones, and text
    /// columns (the first chunk already made them text; nothing turns text back).
    private func settledColumns(_ needed: [Bool]?) -> [Bool] {
        names.indices.map { !(needed?[$0] ?? true) || sampleEvidence.columns[$0].isSettled }
    }

    /// Adopts the layout `evidence` calls for; false when it differs from
    /// the current one in the `read` columns (types, epoch units). With
    /// `everyColumn` (evidence of every column, from the whole file), the
    /// layout is settled: adopted whole and never observed again.
    private func settle(_ evidence: CSVEvidence, read: Set<Int>, everyColumn: Bool = false) throws(FeatureLoadError) -> Bool {
        let final = try CSVLayout(names: names, headerLine: headerLine, evidence: evidence, mapping: options.mapping, file: path)
        let same = read.allSatisfy { layout.key.types[$0] == final.key.types[$0] } && layout.key.units == final.key.units
        if !same || everyColumn { layout = final }
        if everyColumn { verifiedColumns = Set(names.indices) }
        return same
    }
}
