import EntityStreamModel
import EntityStreamCore
import EntityStreamFeatures
/// A feature file read as a sequence of small ``FeatureTable``s: what the
/// file analyses (`statistics`, `query`, `hotspots`, `identify`) read
/// instead of loading the file whole. ``CSVFileScan`` reads CSV;
/// ``JSONLinesFileScan`` reads Esri JSON lines, GeoJSON sequences and recordings.
public protocol FeatureFileScan: AnyObject, Sendable {
    var path: String { get }
    /// The file's size in bytes when opened.
    var fileSize: Int { get }
    /// How far the scan under way has got: bytes and rows delivered (for progress reports).
    var position: ScanPosition { get }
    /// The schema of the tables a scan gives.
    var schema: Schema { get }
    /// True when object ids are numbered 1, 2, 3… in file order.
    var assignsObjectIDs: Bool { get }
    /// True when the tables have point geometry.
    var hasGeometry: Bool { get }
    /// Reads the whole file: each chunk's table goes to `process` on one of
    /// `workers` threads, each result to `consume` in file order (see
    /// ``CSVFileScan/scan(neededFields:filter:readsGeometry:workers:process:consume:)``).
    /// With a `filter`, each table holds only the rows it passes.
    func scan<Partial: Sendable>(neededFields: Set<Int>?, filter: FeatureRowFilter?, readsGeometry: Bool, workers: Int,
                                 process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                 consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome
    /// Reads the whole file, handing each row the filter passes to the
    /// sink of its chunk (made by `makeSink` on a worker thread), and each
    /// chunk's sink to `consume`, in file order.
    func aggregate<Sink: FeatureRowSink>(neededFields: Set<Int>, filter: FeatureRowFilter, workers: Int,
                                         makeSink: @escaping @Sendable () -> Sink,
                                         consume: (Sink) async throws -> Void) async throws -> CSVFileScan.Outcome
    /// Reads the whole file as `scan` does (no filter, the point read) and
    /// settles the layout of every column in the same pass, as
    /// ``verifyLayout(neededFields:workers:)`` with no `neededFields` would
    /// before it (see ``CSVFileScan/scanSettlingLayout(neededFields:workers:process:consume:)``):
    /// ``CSVFileScan/Outcome/layoutChanged`` when what it gave must be discarded and scanned again.
    func scanSettlingLayout<Partial: Sendable>(neededFields: Set<Int>?, workers: Int,
                                               process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                               consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome
    /// What the whole file holds (rows, extent, time extent), when opening it learned that
    /// exactly, so that no pass is needed for it; nil otherwise (CSV: opening reads the header only).
    var indexAtOpen: FeatureFileIndex? { get }
    /// A table of no rows with the scan's layout: what a caller compiles its filters against.
    func emptyTable() throws(FeatureLoadError) -> FeatureTable
    /// Settles the layout of the columns a later scan with `neededFields`
    /// reads, so that scan never answers ``CSVFileScan/Outcome/layoutChanged``.
    func verifyLayout(neededFields: Set<Int>?, workers: Int) async throws
}

extension FeatureFileScan {
    public var indexAtOpen: FeatureFileIndex? { nil }

    public func scan<Partial: Sendable>(neededFields: Set<Int>? = nil, filter: FeatureRowFilter? = nil, readsGeometry: Bool = true,
                                        process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                        consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome {
        try await scan(neededFields: neededFields, filter: filter, readsGeometry: readsGeometry, workers: 2, process: process, consume: consume)
    }

    public func aggregate<Sink: FeatureRowSink>(neededFields: Set<Int>, filter: FeatureRowFilter,
                                                makeSink: @escaping @Sendable () -> Sink,
                                                consume: (Sink) async throws -> Void) async throws -> CSVFileScan.Outcome {
        try await aggregate(neededFields: neededFields, filter: filter, workers: 2, makeSink: makeSink, consume: consume)
    }

    public func verifyLayout(neededFields: Set<Int>? = nil) async throws {
        try await verifyLayout(neededFields: neededFields, workers: 2)
    }

    public func scanSettlingLayout<Partial: Sendable>(neededFields: Set<Int>?,
                                                      process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                                      consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome {
        try await scanSettlingLayout(neededFields: neededFields, workers: 2, process: process, consume: consume)
    }
}

extension CSVFileScan: FeatureFileScan {}

/// `sink` after it took every row of `table`, in order.
func sinkTaking<Sink: FeatureRowSink>(everyRowOf table: FeatureTable, _ sink: Sink) -> Sink {
    var sink = sink
    table.withRowValues { values, width in
        guard let base = values.baseAddress else { return }
        for row in 0..<table.count { sink.take(FeatureTableRowValues(base: base + row &* width, width: width)) }
    }
    return sink
}

/// Opens a feature file for streaming, whatever its format.
public enum FeatureFileScans {
    /// A scan of `path` when its format streams (CSV, Esri JSON lines,
    /// GeoJSON sequences, recordings with a header); nil for the formats
    /// that are one JSON document (the caller loads those whole, within
    /// ``FeatureLoadOptions/maximumDocumentSize``).
    /// - Throws: ``FeatureLoadError`` for a file that cannot be read or
    ///   whose records are bad; `CancellationError`.
    public static func open(path: String, options: FeatureLoadOptions = FeatureLoadOptions(),
                            chunkSize: Int = CSVFileScan.defaultChunkSize) async throws -> (any FeatureFileScan)? {
        if let csv = try CSVFileScan.open(path: path, options: options, chunkSize: chunkSize) { return csv }
        return try await JSONLinesFileScan.open(path: path, options: options, chunkSize: chunkSize)
    }
}

/// Esri JSON lines, a GeoJSON sequence (newline-delimited or RFC 8142) or
/// a recording read as a sequence of small ``FeatureTable``s, one per chunk
/// of about ``chunkSize`` bytes split at line ends (``LineRecordSplitter``:
/// a JSON text never holds a raw line feed, so no chunk boundary falls
/// inside a string or a character), parsed on several threads and handed
/// on in file order.
///
/// Every chunk's table is what the whole-file loader
/// (``FeatureFile/load(path:options:)``) gives for those rows: the loader
/// decides the schema in a first pass over every feature (the fields
/// named, the types their values allow, the spatial reference), and so
/// does ``open(path:options:chunkSize:workers:)``, over the chunks in
/// parallel, keeping only that evidence; each scan then parses the
/// chunks again into rows (two parses per feature, as the loader). So a
/// scan never answers ``CSVFileScan/Outcome/layoutChanged``. Errors carry
/// the line in the file.
///
/// Differences from the whole-file loader: a GeoJSON sequence's ids
/// become the object ids when they are positive integers, unique within
/// each chunk, and the chunks' id ranges do not overlap (ids interleaved
/// across chunks are kept in an `id` field instead); when a file has
/// several bad records, which one is named may differ.
///
/// Memory: about `(2 × workers + 2)` chunks of text plus, per worker, one
/// chunk's table. Blocking reads and parsing run on threads of their own.
public final class JSONLinesFileScan: FeatureFileScan, @unchecked Sendable {
    /// How the records of a chunk become features.
    enum Kind: Sendable {
        case esri(EsriFeatureLoader.Declared, lenient: Bool, recording: Bool, format: FeatureFileFormat)
        case geoJSON
    }

    enum Layout: Sendable {
        case esri(EsriFeatureLoader.Layout)
        case geoJSON(GeoJSONFeatureLoader.Layout)
    }

    public let path: String
    public let chunkSize: Int
    public let fileSize: Int
    public let position = ScanPosition()
    public let format: FeatureFileFormat
    private let kind: Kind
    private let layout: Layout
    private let tableName: String
    /// The rows the file held when opened (the layout pass's count).
    public let rows: Int
    /// The file's rows, extent and time extent as the layout pass found them, when they are
    /// exactly what a scan's tables give (Esri JSON lines; see `EsriFeatureLoader.Layout.index`).
    public let indexAtOpen: FeatureFileIndex?

    /// The largest prefix looked at to tell the format.
    static let sniffBytes = 1 << 20

    public var schema: Schema {
        switch layout {
        case .esri(let layout): layout.plan.schema
        case .geoJSON(let layout): layout.plan.schema
        }
    }

    public var assignsObjectIDs: Bool {
        switch layout {
        case .esri(let layout): layout.plan.assignsObjectIDs
        case .geoJSON(let layout): layout.plan.assignsObjectIDs
        }
    }

    public var hasGeometry: Bool {
        switch layout {
        case .esri(let layout): layout.geometryType == .point
        case .geoJSON(let layout): layout.sawGeometry
        }
    }

    /// What loading the file reports (notes and skipped records).
    public var report: FeatureLoadReport {
        switch layout {
        case .esri(let layout): layout.report
        case .geoJSON(let layout): layout.report
        }
    }

    /// Opens `path` for streaming when it is Esri JSON lines, a GeoJSON
    /// sequence or a recording with a header (by ``FeatureLoadOptions/format``
    /// or its text); nil for any other format. Reads the whole file once
    /// to decide the layout (and, for Esri JSON lines, ``indexAtOpen``).
    /// - Throws: ``FeatureLoadError`` for a file that cannot be read, or
    ///   its first bad record (with its line); `CancellationError`.
    public static func open(path: String, options: FeatureLoadOptions = FeatureLoadOptions(),
                            chunkSize: Int = CSVFileScan.defaultChunkSize, workers: Int = 2) async throws -> JSONLinesFileScan? {
        let head = try FeatureFile.head(path: path, count: sniffBytes)
        if FeatureFile.binaryKind(head.bytes) != nil { return nil }   // the loader names it
        let format = options.format ?? FeatureFileFormat.sniff(head.bytes, fileName: path)
        let kind: Kind
        switch format {
        case .esriFeatureLines?:
            kind = .esri(EsriFeatureLoader.Declared(), lenient: false, recording: false, format: .esriFeatureLines)
        case .geoJSONSeq?:
            kind = .geoJSON
        case .recording?:
            guard let header = recordingHeader(head.bytes) else { return nil }
            var declared: EsriFeatureLoader.Declared
            do { declared = try EsriFeatureLoader.declared(by: header) } catch {
                var error = error
                error.file = path
                throw error
            }
            declared.geometryType = .point
            kind = .esri(declared, lenient: true, recording: true, format: .recording)
        default:
            return nil
        }
        guard let format else { return nil }
        if options.mapping.x != nil {
            throw FeatureLoadError(file: path, .coordinatesForNonCSV(format))
        }
        let name = options.name ?? FeatureFile.baseName(path)
        let reader = try FileChunkReader(path: path, splitter: LineRecordSplitter(), chunkSize: chunkSize)
        let chunks = ChunkScan<ChunkOutcome<Evidence>>(reader: reader, workers: workers) { chunk, _ in
            let lines = Self.lineCount(chunk.bytes)
            do throws(FeatureLoadError) {
                let messages = Self.messages(chunk.bytes, kind: kind, atFileStart: chunk.index == 0)
                switch kind {
                case .esri(let declared, let lenient, _, let format):
                    var evidence = EsriFeatureLoader.Evidence(format: format, keepsIndex: options.indexesAtOpen)
                    try EsriFeatureLoader.observe(messages, declared: declared, lenient: lenient, file: path, into: &evidence)
                    return .parsed(.esri(evidence), lines: lines)
                case .geoJSON:
                    var evidence = GeoJSONFeatureLoader.Evidence()
                    try GeoJSONFeatureLoader.observe(messages, file: path, into: &evidence)
                    return .parsed(.geoJSON(evidence), lines: lines)
                }
            } catch {
                return .failed(error)
            }
        }
        var esri = EsriFeatureLoader.Evidence(format: format, keepsIndex: options.indexesAtOpen)
        var geoJSON = GeoJSONFeatureLoader.Evidence()
        _ = try await deliver(chunks, path: path) { evidence, lineOffset in
            switch evidence {
            case .esri(let chunk): esri.merge(chunk, lineOffset: lineOffset)
            case .geoJSON(let chunk): try geoJSON.merge(chunk, lineOffset: lineOffset, file: path)
            }
        }
        let layout: Layout
        let rows: Int
        var index: FeatureFileIndex?
        switch kind {
        case .esri(let declared, let lenient, _, _):
            let esriLayout = try EsriFeatureLoader.Layout(evidence: esri, declared: declared, lenient: lenient, file: path, mapping: options.mapping)
            layout = .esri(esriLayout)
            rows = esri.rows
            index = esriLayout.index(esri, declared: declared)
        case .geoJSON:
            layout = .geoJSON(try GeoJSONFeatureLoader.Layout(evidence: geoJSON, format: format, file: path, mapping: options.mapping))
            rows = geoJSON.rows
        }
        return JSONLinesFileScan(path: path, chunkSize: chunkSize, fileSize: reader.fileSize, format: format, kind: kind,
                                 layout: layout, tableName: name, rows: rows, index: index)
    }

    private init(path: String, chunkSize: Int, fileSize: Int, format: FeatureFileFormat, kind: Kind, layout: Layout,
                 tableName: String, rows: Int, index: FeatureFileIndex?) {
        self.indexAtOpen = index
        self.path = path
        self.chunkSize = chunkSize
        self.fileSize = fileSize
        self.format = format
        self.kind = kind
        self.layout = layout
        self.tableName = tableName
        self.rows = rows
    }

    /// What the first pass learned from one chunk.
    private enum Evidence: Sendable {
        case esri(EsriFeatureLoader.Evidence)
        case geoJSON(GeoJSONFeatureLoader.Evidence)
    }

    /// What a worker made of one chunk: its result and line count, or its
    /// first bad record (line in the chunk).
    private enum ChunkOutcome<Partial: Sendable>: Sendable {
        case parsed(Partial, lines: Int, rows: Int = 0)
        case failed(FeatureLoadError)
    }

    /// Reads the whole file: each chunk's table (rows in file order) goes to
    /// `process` on one of `workers` threads, and each result to `consume`,
    /// in file order, on the calling task. With a `filter`, a table holds
    /// only the rows it passes (numbered with their object ids in the
    /// file), as a CSV scan's; with `neededFields`, only those fields, the
    /// filter's, the time fields and the object id are converted (the
    /// others are null). Each
    /// JSON text is still parsed whole (`readsGeometry` is for the
    /// interface's sake: a point costs nothing more to keep).
    /// - Throws: ``FeatureLoadError`` for the first bad record in file
    ///   order, or what `process` or `consume` threw; `CancellationError`.
    public func scan<Partial: Sendable>(neededFields: Set<Int>?, filter: FeatureRowFilter?, readsGeometry: Bool, workers: Int,
                                        process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                        consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome {
        let kind = self.kind, layout = self.layout, path = self.path, name = tableName
        let numbersObjectIDs = assignsObjectIDs
        let objectIDField = self.objectIDFieldIndex
        // A filter that tests assigned object ids runs once they are numbered, on the chunk's table.
        let testsAssignedIDs = numbersObjectIDs && filter?.fieldIndices.contains(objectIDField) == true
        let early = filter.flatMap { $0.passesAll || testsAssignedIDs ? nil : $0 }
        let late = testsAssignedIDs ? filter : nil
        // As a CSV scan: the object id and time fields are always converted.
        let always = Set([objectIDField] + timeFieldIndices).union(filter?.fieldIndices ?? [])
        let converted = neededFields.map { needed in schema.fields.indices.map { needed.contains($0) || always.contains($0) } }
        let selection = converted == nil && early == nil ? nil : LoadedRowSelection(converts: converted, filter: early)
        // Up to the size the layout pass read: lines added since would have no layout, and each scan gives the same rows.
        let reader = try FileChunkReader(path: path, splitter: LineRecordSplitter(), chunkSize: chunkSize, end: fileSize)
        let chunks = ChunkScan<ChunkOutcome<Partial>>(reader: reader, workers: workers) { chunk, context in
            let lines = Self.lineCount(chunk.bytes)
            var builder: FeatureTableBuilder
            let loaded: LoadedRows
            do throws(FeatureLoadError) {
                let messages = Self.messages(chunk.bytes, kind: kind, atFileStart: chunk.index == 0)
                builder = try Self.builder(layout, name: name, file: path)
                switch layout {
                case .esri(let layout):
                    loaded = try EsriFeatureLoader.appendRows(messages, layout: layout, file: path, to: &builder, selection: selection)
                case .geoJSON(let layout):
                    builder.reserveCapacity(messages.count)
                    loaded = try GeoJSONFeatureLoader.appendRows(messages, layout: layout, file: path, to: &builder, selection: selection)
                }
            } catch {
                // Later chunks wait for this one's row count.
                if numbersObjectIDs { _ = context.recordBase(records: 0) }
                return .failed(error)
            }
            var table: FeatureTable
            let records = selection == nil ? builder.count : loaded.records
            if numbersObjectIDs {
                guard let base = context.recordBase(records: records) else { throw CancellationError() }
                builder.numberAssignedObjectIDs(after: Int64(base), positions: early == nil ? nil : loaded.positions)
                table = builder.build()
                if let late {
                    let empty = try Self.builder(layout, name: name, file: path)
                    do throws(FeatureTableError) {
                        table = try table.rows(passing: late, idsAfter: Int64(base), into: empty)
                    } catch { throw FeatureLoadError(file: path, .table(error)) }
                }
            } else {
                table = builder.build()
            }
            return .parsed(try process(table), lines: lines, rows: records)
        }
        let delivered = try await Self.deliver(chunks, path: path, position: position) { partial, _ in try await consume(partial) }
        return .finished(rows: delivered)
    }

    /// Reads the whole file like ``scan(neededFields:filter:readsGeometry:workers:process:consume:)``
    /// with a filter: each chunk's rows that pass go to the chunk's sink,
    /// made by `makeSink` on a worker thread, and each sink to `consume`, in
    /// file order.
    public func aggregate<Sink: FeatureRowSink>(neededFields: Set<Int>, filter: FeatureRowFilter, workers: Int,
                                                makeSink: @escaping @Sendable () -> Sink,
                                                consume: (Sink) async throws -> Void) async throws -> CSVFileScan.Outcome {
        try await scan(neededFields: neededFields, filter: filter, readsGeometry: filter.readsGeometry, workers: workers,
                       process: { table in sinkTaking(everyRowOf: table, makeSink()) }, consume: consume)
    }

    /// The schema indices of the start and end time fields.
    private var timeFieldIndices: [Int] {
        switch layout {
        case .esri(let layout): [layout.plan.startTimeFieldIndex, layout.plan.endTimeFieldIndex].compactMap { $0 }
        case .geoJSON(let layout): [layout.plan.startTimeFieldIndex, layout.plan.endTimeFieldIndex].compactMap { $0 }
        }
    }

    /// The schema index of the object id field.
    private var objectIDFieldIndex: Int {
        switch layout {
        case .esri(let layout): layout.plan.objectIDFieldIndex
        case .geoJSON(let layout): layout.plan.objectIDFieldIndex
        }
    }

    private static func builder(_ layout: Layout, name: String, file: String) throws(FeatureLoadError) -> FeatureTableBuilder {
        switch layout {
        case .esri(let layout): return try layout.builder(name: name, file: file)
        case .geoJSON(let layout): return try layout.builder(name: name, file: file)
        }
    }

    /// A table of no rows with the file's layout.
    public func emptyTable() throws(FeatureLoadError) -> FeatureTable {
        try Self.builder(layout, name: tableName, file: path).build()
    }

    /// Nothing to settle: ``open(path:options:chunkSize:workers:)`` read every record's types.
    public func verifyLayout(neededFields: Set<Int>?, workers: Int) async throws {}

    /// A scan (the layout is settled already: never ``CSVFileScan/Outcome/layoutChanged``).
    public func scanSettlingLayout<Partial: Sendable>(neededFields: Set<Int>?, workers: Int,
                                                      process: @escaping @Sendable (FeatureTable) throws -> Partial,
                                                      consume: (Partial) async throws -> Void) async throws -> CSVFileScan.Outcome {
        try await scan(neededFields: neededFields, filter: nil, readsGeometry: true, workers: workers, process: process, consume: consume)
    }

    /// Takes the chunks' outcomes in file order, handing each result to
    /// `consume` with the lines before its chunk; the first bad record
    /// throws with its line in the file. Returns the rows delivered.
    private static func deliver<Partial: Sendable>(_ chunks: ChunkScan<ChunkOutcome<Partial>>, path: String, position: ScanPosition? = nil,
                                                   to consume: (Partial, Int) async throws -> Void) async throws -> Int {
        defer { chunks.stop() }
        position?.reset()
        var lines = 0
        var delivered = 0
        while let delivery = try await chunks.next() {
            switch delivery.partial {
            case .failed(var error):
                error.line = error.line.map { lines + $0 }
                throw error
            case .parsed(let partial, let chunkLines, let rows):
                position?.delivered(through: delivery.offset + delivery.byteCount, rows: rows)
                try await consume(partial, lines)
                lines += chunkLines
                delivered += rows
            }
        }
        return delivered
    }

    /// The records of one chunk with their lines in it (1-based).
    static func messages(_ bytes: [UInt8], kind: Kind, atFileStart: Bool) -> [EsriFeatureLoader.Message] {
        guard case .esri(_, _, true, _) = kind else { return EsriFeatureLoader.lineMessages(bytes, atFileStart: atFileStart) }
        return EsriFeatureLoader.recordingMessages(bytes, atFileStart: atFileStart)
    }

    /// The line feeds in `bytes`.
    static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var count = 0
            for byte in buffer where byte == 0x0A { count += 1 }
            return count
        }
    }

    /// The recording header on the first line of `head`, or nil.
    static func recordingHeader(_ head: [UInt8]) -> RecordingHeader? {
        var start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        guard let end = head[start...].firstIndex(of: 0x0A) ?? (head.count < sniffBytes ? head.count : nil) else { return nil }
        var upper = end
        while upper > start, [0x20, 0x09, 0x0D].contains(head[upper - 1]) { upper -= 1 }
        let lineNumber = 1 + head[..<start].count { $0 == 0x0A }
        return (try? RecordingHeader(line: Array(head[start..<upper]), lineNumber: lineNumber)) ?? nil
    }
}
