/// One record of a CSV text: its fields and the 1-based line it starts on.
public struct CSVRecord: Sendable, Hashable {
    public var line: Int
    public var fields: [String]
    /// Indices of the fields that were quoted and hold nothing but spaces
    /// or tabs (`""`, `" "`): an empty *string*, where an unquoted empty
    /// field is no value (null), as DuckDB and PostgreSQL read CSV.
    public var quotedBlankFields: [Int]

    public init(line: Int, fields: [String], quotedBlankFields: [Int] = []) {
        self.line = line
        self.fields = fields
        self.quotedBlankFields = quotedBlankFields
    }

    /// True when field `index` was quoted and blank (an empty string, not null).
    @inlinable public func isQuotedBlank(_ index: Int) -> Bool {
        !quotedBlankFields.isEmpty && quotedBlankFields.contains(index)
    }
}

/// Splits CSV text into records per RFC 4180, leniently where that is harmless.
///
/// - Fields are separated by `,`; records end at CRLF, LF or a lone CR.
/// - A field starting with `"` is quoted: it runs to the next `"` not
///   followed by another `"` (a doubled `""` is one quote) and may contain
///   commas and line breaks. After the closing quote only a separator, a line
///   end or the end of text may follow, else it is an error. A quoted field
///   that never closes is an error naming the line where it opened.
/// - A `"` inside an unquoted field is kept literally.
/// - Blank lines (no characters at all) are skipped; a final line end is optional.
/// - A leading UTF-8 byte-order mark is ignored; invalid UTF-8 is repaired
///   with U+FFFD, never fatal.
/// Quoting only escapes (`"12"` and `12` read the same), except that a
/// quoted blank field is an empty string and an unquoted one null
/// (``CSVRecord/quotedBlankFields``).
///
/// One linear pass; ``forEachRecord(in:_:)`` hands each record over as it is
/// read, so a caller can make several passes over a large text without
/// holding every record. Throws ``CSVError`` with the line. Stateless.
public enum CSVReader {
    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","),
        cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    /// Every record of `text`, in order.
    public static func records(_ text: String) throws(CSVError) -> [CSVRecord] {
        var text = text
        let result: Result<[CSVRecord], CSVError> = text.withUTF8 { buffer in
            do throws(CSVError) {
                return .success(try records(bytes: buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Every record of the UTF-8 `bytes`, in order.
    public static func records(bytes: UnsafeBufferPointer<UInt8>) throws(CSVError) -> [CSVRecord] {
        var records: [CSVRecord] = []
        try forEachRecord(in: bytes) { (record: CSVRecord) throws(CSVError) in records.append(record) }
        return records
    }

    /// Calls `body` with each record of the UTF-8 `bytes`, in order. Stops at
    /// the first error, `body`'s or the reader's.
    public static func forEachRecord(in bytes: UnsafeBufferPointer<UInt8>,
                                     _ body: (CSVRecord) throws(CSVError) -> Void) throws(CSVError) {
        var fields: [String] = []
        var line = 1
        var recordLine = 1
        var i = 0
        let n = bytes.count
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        guard i < n else { return }

        var scratch: [UInt8] = []
        var quotedBlank: [Int] = []
        while true {
            // One field starts at i.
            var quoted = false
            if i < n, bytes[i] == quote {
                quoted = true
                let openLine = line
                scratch.removeAll(keepingCapacity: true)
                i += 1
                var closed = false
                while i < n {
                    let byte = bytes[i]
                    if byte == quote {
                        if i + 1 < n, bytes[i + 1] == quote {
                            scratch.append(quote)
                            i += 2
                            continue
                        }
                        i += 1
                        closed = true
                        break
                    }
                    if byte == lf || (byte == cr && !(i + 1 < n && bytes[i + 1] == lf)) { line += 1 }
                    scratch.append(byte)
                    i += 1
                }
                guard closed else {
                    throw CSVError(.unclosedQuote, line: openLine)
                }
                if i < n, bytes[i] != comma, bytes[i] != cr, bytes[i] != lf {
                    throw CSVError(.characterAfterClosingQuote, line: line)
                }
                if scratch.allSatisfy({ $0 == 32 || $0 == 9 }) { quotedBlank.append(fields.count) }
                fields.append(String(decoding: scratch, as: UTF8.self))
            } else {
                let start = i
                while i < n, bytes[i] != comma, bytes[i] != cr, bytes[i] != lf { i += 1 }
                fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
            }

            // After the field: a separator, a line end, or the end.
            if i < n, bytes[i] == comma {
                i += 1
                continue
            }
            let blank = fields.count == 1 && !quoted && fields[0].isEmpty
            if !blank { try body(CSVRecord(line: recordLine, fields: fields, quotedBlankFields: quotedBlank)) }
            fields.removeAll(keepingCapacity: true)
            if !quotedBlank.isEmpty { quotedBlank.removeAll() }
            guard i < n else { break }
            if bytes[i] == cr, i + 1 < n, bytes[i + 1] == lf { i += 1 }
            i += 1
            line += 1
            recordLine = line
            if i >= n { break }
        }
    }
}
