import EntityStreamModel
/// One field of a CSV record as ``CSVTokenizer`` found it: where its text
/// lies in the chunk (inside the quotes for a quoted field), whether it was
/// quoted, and whether that text still holds doubled quotes to unescape.
struct CSVFieldSpan {
    var start: Int
    var end: Int
    var quoted: Bool
    var escaped: Bool
}

/// Splits CSV bytes into records and fields exactly as ``CSVReader`` does
/// (RFC 4180, CRLF/LF/CR line ends, blank lines skipped, a BOM ignored at
/// the file's start, the same errors at the same lines), without making a
/// `String` per field: fields are spans of the bytes. Lines are counted from
/// 1 at the chunk's start. Not thread-safe; one per chunk.
struct CSVTokenizer {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    /// The line the tokenizer is on (1-based, relative to the chunk).
    private(set) var line = 1
    /// The line the last record started on.
    private(set) var recordLine = 1

    private static let quote: UInt8 = 0x22, comma: UInt8 = 0x2C, cr: UInt8 = 0x0D, lf: UInt8 = 0x0A

    init(_ bytes: UnsafeBufferPointer<UInt8>, atFileStart: Bool) {
        self.bytes = bytes
        if atFileStart, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    /// Line breaks passed so far (the chunk's line count once every record is read).
    var linesPassed: Int { line - 1 }

    /// Reads the next non-blank record's fields into `fields`; false at the end.
    mutating func next(into fields: inout [CSVFieldSpan]) throws(CSVError) -> Bool {
        let n = bytes.count
        guard let base = bytes.baseAddress else { return false }
        while position < n {
            fields.removeAll(keepingCapacity: true)
            recordLine = line
            var i = position
            while true {
                if i < n, base[i] == Self.quote {
                    let openLine = line
                    i += 1
                    let start = i
                    var escaped = false
                    var closed = false
                    while i < n {
                        let byte = base[i]
                        if byte == Self.quote {
                            if i + 1 < n, base[i + 1] == Self.quote {
                                escaped = true
                                i += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        if byte == Self.lf || (byte == Self.cr && !(i + 1 < n && base[i + 1] == Self.lf)) { line += 1 }
                        i += 1
                    }
                    guard closed else { throw CSVError(.unclosedQuote, line: openLine) }
                    fields.append(CSVFieldSpan(start: start, end: i, quoted: true, escaped: escaped))
                    i += 1
                    if i < n, base[i] != Self.comma, base[i] != Self.cr, base[i] != Self.lf {
                        throw CSVError(.characterAfterClosingQuote, line: line)
                    }
                } else {
                    let start = i
                    while i < n {
                        let byte = base[i]
                        if byte == Self.comma || byte == Self.lf || byte == Self.cr { break }
                        i += 1
                    }
                    fields.append(CSVFieldSpan(start: start, end: i, quoted: false, escaped: false))
                }
                if i < n, base[i] == Self.comma {
                    i += 1
                    continue
                }
                break
            }
            // The record ends at a line end or the end of the bytes.
            if i < n {
                if base[i] == Self.cr, i + 1 < n, base[i + 1] == Self.lf { i += 1 }
                i += 1
                line += 1
            }
            position = i
            let blank = fields.count == 1 && !fields[0].quoted && fields[0].start == fields[0].end
            if !blank { return true }
        }
        return false
    }

    /// The text of `field` (quotes removed, `""` unescaped into `scratch`), for `body`.
    @inline(__always)
    func withText<R>(_ field: CSVFieldSpan, scratch: inout [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard field.escaped else { return body(UnsafeBufferPointer(rebasing: bytes[field.start..<field.end])) }
        scratch.removeAll(keepingCapacity: true)
        var i = field.start
        while i < field.end {
            scratch.append(bytes[i])
            i += bytes[i] == Self.quote ? 2 : 1
        }
        return scratch.withUnsafeBufferPointer(body)
    }
}

/// What a streamed scan reads of each record of a chunk: the columns the
/// row filter needs (and those whose bad values are errors: the time
/// columns read) are converted in every record, the rest of the columns
/// read only in the records the filter passes; the coordinates are read in
/// every record when the geometry is (filtered or written), else not at
/// all. Columns not read are not converted, so their values are not checked
/// (the record's shape is: its field count and quotes).
package struct CSVRowSelection: Sendable {
    var filter: FeatureRowFilter
    /// Per column: converted in every record.
    package var early: [Bool]
    /// Per column: converted in the records the filter passes.
    package var late: [Bool]
    /// Whether the coordinates are read.
    var readsPoint: Bool

    package init(filter: FeatureRowFilter, early: [Bool], late: [Bool], readsPoint: Bool) {
        self.filter = filter
        self.early = early
        self.late = late
        self.readsPoint = readsPoint
    }
}

/// Reads CSV chunks (whole records, see ``CSVRecordSplitter``) into tables
/// of a ``CSVLayout``, and gathers the ``CSVEvidence`` that decides a
/// layout — the one CSV row reader of the project's feature files: the whole-
/// file ``CSVFeatureLoader`` reads its text as a single chunk, a streamed
/// scan reads many chunks on several threads.
///
/// Per row, as the loader's contract says: the field count must match the
/// header; coordinates must be numbers (both empty: a null geometry); time
/// columns are dates or epoch numbers in the layout's unit; other columns
/// take their inferred type (a quoted blank is an empty string in a text
/// column, an unquoted empty field null). Columns not in `needed` stay null
/// (their values are only checked and observed), so an analysis pays only
/// for the columns it reads. Errors are ``CSVError`` with the line relative
/// to the chunk's first line. Stateless.
package enum CSVChunkParser {
    /// What one chunk gave.
    package struct Parsed {
        package var builder: FeatureTableBuilder
        /// The chunk's evidence (when asked for).
        package var evidence: CSVEvidence?
        /// Line breaks in the chunk.
        package var lines: Int
        /// Records read (the header not counted).
        package var records: Int
        /// With a selection: the position among the chunk's records of each row kept.
        package var positions: [Int]?
    }

    /// Reads the header (the first record) of a file's first chunk: its
    /// names and line. Nil when the chunk holds no record.
    package static func header(of bytes: UnsafeBufferPointer<UInt8>) throws(CSVError) -> (names: [String], line: Int)? {
        var tokenizer = CSVTokenizer(bytes, atFileStart: true)
        var fields: [CSVFieldSpan] = []
        guard try tokenizer.next(into: &fields) else { return nil }
        var scratch: [UInt8] = []
        let texts = fields.map { field in tokenizer.withText(field, scratch: &scratch) { String(decoding: $0, as: UTF8.self) } }
        return (try CSVLayout.headerNames(texts, line: tokenizer.recordLine), tokenizer.recordLine)
    }

    /// Only the evidence of a chunk (pass 1 of a load): every record's
    /// shape checked, every column's values observed (except `settled` ones).
    package static func evidence(of bytes: UnsafeBufferPointer<UInt8>, atFileStart: Bool, columnCount: Int, epochColumns: [Int],
                         settled: [Bool]? = nil, shouldStop: () -> Bool = { false }) throws(CSVError) -> (evidence: CSVEvidence, lines: Int, records: Int) {
        var tokenizer = CSVTokenizer(bytes, atFileStart: atFileStart)
        var fields: [CSVFieldSpan] = []
        fields.reserveCapacity(columnCount)
        var evidence = CSVEvidence(columnCount: columnCount)
        var scratch: [UInt8] = []
        var records = 0
        var skipHeader = atFileStart
        let isEpoch = (0..<columnCount).map { epochColumns.contains($0) }
        let observed = (0..<columnCount).map { !(settled?[$0] ?? false) }
        while try nextRow(&tokenizer, into: &fields, columnCount: columnCount, skippingHeader: &skipHeader) {
            records += 1
            if records & 4095 == 0, shouldStop() { break }
            for column in 0..<columnCount where observed[column] || isEpoch[column] {
                tokenizer.withText(fields[column], scratch: &scratch) { raw in
                    let trimmed = CSVNumber.trim(raw)
                    guard !trimmed.isEmpty else { return }
                    var scanned: CSVNumber.Scanned?
                    if isEpoch[column] {
                        let number = CSVNumber.scan(trimmed)
                        scanned = number
                        if let value = number.double { evidence.largestNumber[column] = max(evidence.largestNumber[column], abs(value)) }
                    }
                    if observed[column] { evidence.columns[column].observe(trimmed: trimmed, scanned: scanned) }
                }
            }
        }
        return (evidence, tokenizer.linesPassed, records)
    }

    /// The rows of a chunk, read with `layout` into `builder` (``CSVLayout/builder(name:format:)``).
    /// - Parameters:
    ///   - needed: per column, whether its values are kept (nil: all).
    ///   - collectEvidence: also gather the chunk's evidence (for a layout not yet certain).
    ///   - selection: when given, only the rows it passes are kept and only
    ///     the columns it reads are converted (see ``CSVRowSelection``);
    ///     `needed` is then ignored.
    ///   - take: with a selection, receives each row it passes (its values
    ///     by field, the point not included) instead of the builder.
    package static func rows(of bytes: UnsafeBufferPointer<UInt8>, atFileStart: Bool, layout: CSVLayout, into builder: FeatureTableBuilder,
                     needed: [Bool]? = nil, collectEvidence: Bool, settled: [Bool]? = nil, selection: CSVRowSelection? = nil,
                     take: ((FeatureTableRowValues) -> Void)? = nil, shouldStop: () -> Bool = { false }) throws(CSVError) -> Parsed {
        let columnCount = layout.names.count
        var builder = builder
        if selection == nil { builder.reserveCapacity(bytes.count / max(8, 4 * columnCount)) }
        var tokenizer = CSVTokenizer(bytes, atFileStart: atFileStart)
        var fields: [CSVFieldSpan] = []
        fields.reserveCapacity(columnCount)
        var evidence = collectEvidence ? CSVEvidence(columnCount: columnCount) : nil
        var scratch: [UInt8] = []
        let plan = layout.plan
        var values = [AttributeValue](repeating: .null, count: plan.schema.fields.count)
        let epochColumns = CSVLayout.epochColumns(layout.names, mapping: layout.mapping)
        let isEpoch = (0..<columnCount).map { epochColumns.contains($0) }
        let observed = (0..<columnCount).map { collectEvidence && !(settled?[$0] ?? false) }
        let isObjectID = (0..<columnCount).map { plan.finalIndex(ofSource: $0) == plan.objectIDFieldIndex }
        // Converted in every row: the columns a selection reads first (or all kept ones).
        let keeps = (0..<columnCount).map { column in
            selection.map { $0.early[column] || isObjectID[column] }
                ?? (needed?[column] ?? true || layout.isTimeColumn[column] || isObjectID[column])
        }
        // Converted in the rows the selection passes.
        let lateColumns = selection.map { selection in (0..<columnCount).filter { selection.late[$0] && !keeps[$0] } } ?? []
        let readsPoint = selection?.readsPoint ?? true
        let filter = selection?.filter
        let passesAll = filter?.passesAll ?? true
        let types = (0..<columnCount).map { plan.types[plan.finalIndex(ofSource: $0)] }
        let xColumn = layout.xColumn ?? -1, yColumn = layout.yColumn ?? -1
        let wkid = layout.wkid
        var positions: [Int] = []
        var skipHeader = atFileStart
        var rowCount = 0
        while try nextRow(&tokenizer, into: &fields, columnCount: columnCount, skippingHeader: &skipHeader) {
            if (rowCount &+ 1) & 4095 == 0, shouldStop() { break }
            rowCount += 1
            var x: Double?, y: Double?
            var xEmpty = true, yEmpty = true
            var timeFailure: CSVError?
            for column in 0..<columnCount {
                let keep = keeps[column]
                let isCoordinate = readsPoint && (column == xColumn || column == yColumn)
                guard keep || isCoordinate || observed[column] || isEpoch[column] && collectEvidence else { continue }
                let field = fields[column]
                let target = column &+ plan.shift
                tokenizer.withText(field, scratch: &scratch) { raw in
                    let trimmed = CSVNumber.trim(raw)
                    var scanned: CSVNumber.Scanned?
                    if !trimmed.isEmpty, isCoordinate || isEpoch[column] || (observed[column] && !evidence!.columns[column].isSettled)
                        || (keep && types[column] != .string && types[column] != .date) {
                        scanned = CSVNumber.scan(trimmed)
                    }
                    if observed[column] { evidence!.columns[column].observe(trimmed: trimmed, scanned: scanned) }
                    if isEpoch[column], collectEvidence, let value = scanned?.double {
                        evidence!.largestNumber[column] = max(evidence!.largestNumber[column], abs(value))
                    }
                    if column == xColumn {
                        xEmpty = trimmed.isEmpty
                        x = scanned?.double
                    } else if column == yColumn {
                        yEmpty = trimmed.isEmpty
                        y = scanned?.double
                    }
                    guard keep else { return }
                    if layout.isTimeColumn[column] {
                        if trimmed.isEmpty {
                            values[target] = .null
                        } else if let ms = timeMilliseconds(trimmed, scanned: scanned, unit: layout.units[column]) {
                            values[target] = .date(milliseconds: ms)
                        } else if timeFailure == nil {
                            let text = String(decoding: trimmed, as: UTF8.self)
                            timeFailure = CSVError(.unreadableTime(column: layout.names[column], text: text), line: tokenizer.recordLine)
                        }
                    } else {
                        values[target] = value(raw, trimmed: trimmed, scanned: scanned, type: types[column],
                                               quotedBlank: field.quoted && trimmed.isEmpty)
                    }
                }
            }
            // The loader's order of checks: times (by column), then x, then y, then the row.
            if let timeFailure { throw timeFailure }
            var point: Point?
            if readsPoint, xColumn >= 0, !(xEmpty && yEmpty) {
                if let x, let y {
                    point = Point(x: x, y: y)
                } else {
                    for (key, column, empty, number) in [("x", xColumn, xEmpty, x), ("y", yColumn, yEmpty, y)] {
                        if empty { throw CSVError(.coordinateEmptyBesideOther(key: key, column: layout.names[column]), line: tokenizer.recordLine) }
                        if number == nil {
                            let text = tokenizer.withText(fields[column], scratch: &scratch) { String(decoding: CSVNumber.trim($0), as: UTF8.self) }
                            throw CSVError(.notANumber(key: key, column: layout.names[column], text: text), line: tokenizer.recordLine)
                        }
                    }
                }
            }
            if let filter {
                point?.wkid = wkid
                if !passesAll {
                    let passes = values.withUnsafeBufferPointer { row in
                        // The row has a value per field (the schema is never empty).
                        row.baseAddress.map { filter.passes(FeatureTableRowValues(base: $0, width: row.count), point: point) } ?? false
                    }
                    guard passes else { continue }
                }
                for column in lateColumns {
                    let field = fields[column]
                    values[column &+ plan.shift] = tokenizer.withText(field, scratch: &scratch) { raw in
                        let trimmed = CSVNumber.trim(raw)
                        return value(raw, trimmed: trimmed, scanned: nil, type: types[column], quotedBlank: field.quoted && trimmed.isEmpty)
                    }
                }
                if let take {
                    values.withUnsafeBufferPointer { row in
                        if let base = row.baseAddress { take(FeatureTableRowValues(base: base, width: row.count)) }
                    }
                    continue
                }
                positions.append(rowCount &- 1)
            }
            do throws(FeatureTableError) { try builder.append(geometry: point, values: values) } catch {
                throw CSVError(.row(error), line: tokenizer.recordLine)
            }
        }
        return Parsed(builder: builder, evidence: evidence, lines: tokenizer.linesPassed, records: rowCount,
                      positions: selection == nil ? nil : positions)
    }

    /// Reads the next data record into `fields` (the header first, when
    /// `skippingHeader`, is passed over), checking its field count; false at the end.
    @inline(__always)
    static func nextRow(_ tokenizer: inout CSVTokenizer, into fields: inout [CSVFieldSpan], columnCount: Int,
                        skippingHeader: inout Bool) throws(CSVError) -> Bool {
        while try tokenizer.next(into: &fields) {
            if skippingHeader {
                skippingHeader = false
                continue
            }
            guard fields.count == columnCount else {
                throw CSVError(.fieldCount(expected: columnCount, found: fields.count), line: tokenizer.recordLine)
            }
            return true
        }
        return false
    }

    /// ``CSVColumnTypeInference/value(_:type:quoted:)`` on bytes.
    @inline(__always)
    static func value(_ raw: UnsafeBufferPointer<UInt8>, trimmed: UnsafeBufferPointer<UInt8>, scanned: CSVNumber.Scanned?,
                      type: FieldType, quotedBlank: Bool) -> AttributeValue {
        if trimmed.isEmpty {
            switch type {
            case .string, .guid, .globalID, .other: return quotedBlank ? .string(String(decoding: raw, as: UTF8.self)) : .null
            default: return .null
            }
        }
        switch type {
        case .integer, .bigInteger, .smallInteger, .objectID:
            let number = scanned ?? CSVNumber.scan(trimmed)
            if number.kind == .integer, let integer = number.integer { return .int(integer) }
        case .double, .single:
            if let double = (scanned ?? CSVNumber.scan(trimmed)).double { return .double(double) }
        case .date:
            if let ms = CSVTime.milliseconds(bytes: trimmed) { return .date(milliseconds: ms) }
        default:
            break
        }
        return .string(String(decoding: raw, as: UTF8.self))
    }

    /// ``CSVTime/milliseconds(_:unit:)`` on bytes.
    @inline(__always)
    static func timeMilliseconds(_ trimmed: UnsafeBufferPointer<UInt8>, scanned: CSVNumber.Scanned?, unit: CSVTime.EpochUnit) -> Int64? {
        let number = scanned ?? CSVNumber.scan(trimmed)
        if number.kind != nil {
            if number.kind == .integer, let integer = number.integer { return CSVTime.milliseconds(epoch: integer, unit: unit) }
            return number.double.flatMap { CSVTime.milliseconds(epoch: $0, unit: unit) }
        }
        return CSVTime.milliseconds(bytes: trimmed)
    }
}
