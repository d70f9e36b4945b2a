import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures

/// A CSV file of timestamped positions turned into a replayable stream:
/// a schema and every fix as an observation, in time order.
///
/// Contract:
/// - The text is RFC 4180 CSV with a header row (see `CSVReader` rules:
///   quoted fields, doubled quotes, CRLF/LF/CR line ends, blank lines skipped).
///   Header names are trimmed and must be non-empty and unique
///   (ASCII case-insensitively); the mapped columns are found
///   case-insensitively.
/// - ``schema`` has one field per CSV column except the x and y columns, in
///   header order. The time column is `esriFieldTypeDate` and the schema's
///   start-time field (so time extents match it by default); every other
///   column's type is inferred from its values (`CSVColumnTypeInference`:
///   integer, bigInteger, double, else string). The track id field is the
///   mapping's id column.
/// - ``observations`` has one observation per data row, stably sorted by
///   time: geometry `(x, y)` with wkid 4326 (values taken as given),
///   attributes aligned to ``schema`` (an empty field is null),
///   `receivedAt` = the row's time in epoch milliseconds.
/// - Times: ISO-8601 with or without offset (none = UTC), `YYYY-MM-DD HH:MM:SS`
///   (UTC), or, for numeric values, epoch seconds or milliseconds, the unit
///   chosen per column (milliseconds when the largest magnitude is ≥ 10¹¹) —
///   see ``CSVTime``.
/// - Throws ``CSVError`` for: no header row; an empty or duplicate
///   header name; a mapped column missing from the header (named); malformed
///   quoting (with the line). A row whose field count differs from the
///   header's, with an empty or unparsable time, or an empty or non-numeric
///   x or y does not refuse the file: it is a ``RejectedRow`` (its line and
///   why), placed after the valid row that precedes it in the file, so a
///   replay reports it where it stands and plays the rest.
public struct CSVTrackRecording: Sendable {
    /// The mapping the recording was read with.
    public let mapping: CSVColumnMapping
    /// One field per non-coordinate column; track id = the id column.
    public let schema: Schema
    /// Index of the time column's field in ``schema``.
    public let timeFieldIndex: Int
    /// Every valid row, sorted by time (stable).
    public let observations: [Observation]
    /// Rows that could not be read, in file order.
    public let rejectedRows: [RejectedRow]

    /// A row that could not be read: its line, why, and where it stands —
    /// after `observations[after]` (the valid row before it in the file),
    /// or before every observation when `after` is nil.
    public struct RejectedRow: Sendable, Hashable {
        public let line: Int
        public let reason: CSVError.Reason
        public let after: Int?
    }

    /// Parses the whole CSV `text` with `mapping`.
    /// - Throws: ``CSVError`` (see the type's contract).
    public init(csv text: String, mapping: CSVColumnMapping) throws(CSVError) {
        try mapping.validate()
        self.mapping = mapping
        let records = try CSVReader.records(text)
        guard let header = records.first else {
            throw CSVError(.emptyText)
        }

        // Header names and the mapped columns.
        let names = header.fields.map { String(CSVNumber.trim($0)) }
        var columnByFoldedName: [String: Int] = [:]
        for (column, name) in names.enumerated() {
            guard !name.isEmpty else {
                throw CSVError(.headerColumnWithoutName(column: column + 1), line: header.line)
            }
            let folded = Schema.fold(name)
            guard columnByFoldedName[folded] == nil else {
                throw CSVError(.headerColumnTwice(name), line: header.line)
            }
            columnByFoldedName[folded] = column
        }
        func column(_ key: String, _ name: String) throws(CSVError) -> Int {
            guard let column = columnByFoldedName[CSVColumnMapping.fold(name)] else {
                throw CSVError(.missingColumn(String(CSVColumnMapping.trim(Substring(name))), role: key, columns: names))
            }
            return column
        }
        let idColumn = try column("id", mapping.id)
        let timeColumn = try column("time", mapping.time)
        let xColumn = try column("x", mapping.x)
        let yColumn = try column("y", mapping.y)

        let rows = records.dropFirst()
        let width = names.count

        // Epoch unit of the time column, from its numeric values.
        var largestEpoch = 0.0
        for row in rows where row.fields.count == width {
            let value = CSVNumber.trim(row.fields[timeColumn])
            if let number = CSVNumber.double(value) { largestEpoch = max(largestEpoch, abs(number)) }
        }
        let unit = CSVTime.EpochUnit(largestMagnitude: largestEpoch)

        // Per row: shape, coordinates and time; per column: type inference.
        var inference = Array(repeating: CSVColumnTypeInference(), count: width)
        var points: [Point] = []
        var times: [Int64] = []
        var validRows: [CSVRecord] = []
        // Per rejected row: its line, reason, and how many valid rows came before it.
        var rejected: [(line: Int, reason: CSVError.Reason, validBefore: Int)] = []
        points.reserveCapacity(rows.count)
        times.reserveCapacity(rows.count)
        for row in rows {
            let x: Double, y: Double, time: Int64
            do throws(CSVError) {
                guard row.fields.count == width else {
                    throw CSVError(.fieldCount(expected: width, found: row.fields.count), line: row.line)
                }
                x = try Self.coordinate(row, xColumn, key: "x", name: names[xColumn])
                y = try Self.coordinate(row, yColumn, key: "y", name: names[yColumn])
                time = try Self.time(row, timeColumn, name: names[timeColumn], unit: unit)
            } catch {
                rejected.append((row.line, error.reason, validRows.count))
                continue
            }
            validRows.append(row)
            points.append(Point(x: x, y: y, wkid: 4326))
            times.append(time)
            for column in 0..<width where column != xColumn && column != yColumn && column != timeColumn {
                inference[column].observe(CSVNumber.trim(row.fields[column]))
            }
        }

        // Schema: every column but x and y, in header order.
        var fields: [Field] = []
        var columns: [Int] = []
        var types: [FieldType] = []
        var timeFieldIndex = 0
        for column in 0..<width where column != xColumn && column != yColumn {
            let type: FieldType = column == timeColumn ? .date : inference[column].fieldType
            if column == timeColumn { timeFieldIndex = fields.count }
            fields.append(Field(name: names[column], type: type))
            columns.append(column)
            types.append(type)
        }
        // The time column is the data's time (timeInfo.startTimeField): time
        // extents of queries on a replay match it by default, not receive time.
        schema = Schema(fields: fields, trackIDField: names[idColumn], startTimeField: names[timeColumn])
        self.timeFieldIndex = timeFieldIndex

        // Observations, stably sorted by time.
        var observations: [Observation] = []
        observations.reserveCapacity(validRows.count)
        for (offset, row) in validRows.enumerated() {
            var attributes: [AttributeValue] = []
            attributes.reserveCapacity(columns.count)
            for (k, column) in columns.enumerated() {
                attributes.append(column == timeColumn
                    ? .date(milliseconds: times[offset])
                    : CSVColumnTypeInference.value(row.fields[column], type: types[k], quoted: row.isQuotedBlank(column)))
            }
            observations.append(Observation(geometry: points[offset], attributes: attributes, receivedAt: times[offset]))
        }
        let order = observations.indices.sorted { a, b in
            times[a] != times[b] ? times[a] < times[b] : a < b
        }
        self.observations = order.map { observations[$0] }
        var sortedPosition = [Int](repeating: 0, count: order.count)
        for (position, fileIndex) in order.enumerated() { sortedPosition[fileIndex] = position }
        rejectedRows = rejected.map { RejectedRow(line: $0.line, reason: $0.reason, after: $0.validBefore == 0 ? nil : sortedPosition[$0.validBefore - 1]) }
    }

    private static func coordinate(_ row: CSVRecord, _ column: Int, key: String, name: String) throws(CSVError) -> Double {
        let text = CSVNumber.trim(row.fields[column])
        guard !text.isEmpty else {
            throw CSVError(.coordinateEmpty(key: key, column: name), line: row.line)
        }
        guard let value = CSVNumber.double(text) else {
            throw CSVError(.notANumber(key: key, column: name, text: String(text)), line: row.line)
        }
        return value
    }

    private static func time(_ row: CSVRecord, _ column: Int, name: String,
                             unit: CSVTime.EpochUnit) throws(CSVError) -> Int64 {
        let text = CSVNumber.trim(row.fields[column])
        guard !text.isEmpty else {
            throw CSVError(.timeEmpty(column: name), line: row.line)
        }
        let parsed = CSVTime.milliseconds(text, unit: unit)
        guard let parsed else {
            throw CSVError(.unreadableTrackTime(column: name, text: String(text)), line: row.line)
        }
        return parsed
    }
}
