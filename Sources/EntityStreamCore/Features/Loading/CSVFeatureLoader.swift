/// Loads a CSV text (header row, then one row per feature) into a
/// ``FeatureTable`` in two linear passes over the bytes: the first checks
/// each row's shape and infers each column's type, the second builds the rows.
///
/// - Columns keep their header order and names (trimmed; non-empty and
///   unique ASCII case-insensitively, else an error naming them); a header
///   that is not a valid field name gets one (``FieldNaming``) and stays
///   the field's alias, and mappings may name either. Types are
///   inferred (``CSVColumnTypeInference`` with date detection: integer,
///   bigInteger, double, date for ISO-8601 texts, else string).
/// - Coordinates: the mapped `x`/`y` columns, else columns named
///   `x`/`lon`/`long`/`longitude`/`lng` and `y`/`lat`/`latitude` when both
///   exist; they stay attributes too. Without them the CSV is a table. An
///   empty x and y make a null geometry; one empty, or a non-number, is an
///   error naming the line. Coordinates are in the mapping's `wkid`, else 4326.
/// - Mapped time columns accept date texts and epoch seconds or milliseconds
///   (unit chosen per column by magnitude, ``CSVTime/EpochUnit``).
/// - Errors (``FeatureLoadError``) name the file and line: a row with the
///   wrong number of fields, malformed quoting, a bad coordinate or time, a
///   repeated object id.
enum CSVFeatureLoader {
    static let xNames = ["x", "lon", "long", "longitude", "lng"]
    static let yNames = ["y", "lat", "latitude"]

    static func load(_ bytes: UnsafeBufferPointer<UInt8>, file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        func failure(_ error: CSVError) -> FeatureLoadError { FeatureLoadError(file: file, line: error.line, error.message) }

        // Pass 1: header, shape, types.
        var names: [String] = []
        var headerLine = 1
        var inference: [CSVColumnTypeInference] = []
        var largestNumber: [Double] = []
        var epochColumns: [Int] = []
        var rows = 0
        var sawHeader = false
        var checkpoint = CancellationCheckpoint()
        do throws(CSVError) {
            try CSVReader.forEachRecord(in: bytes) { (record: CSVRecord) throws(CSVError) in
                if checkpoint.isCancelled() { throw CSVError("cancelled", line: record.line) }
                if !sawHeader {
                    sawHeader = true
                    names = record.fields.map { String(CSVNumber.trim($0)) }
                    headerLine = record.line
                    var seen: Set<String> = []
                    for (column, name) in names.enumerated() {
                        guard !name.isEmpty else { throw CSVError("header column \(column + 1) has no name", line: record.line) }
                        guard seen.insert(Schema.fold(name)).inserted else { throw CSVError("header names column '\(name)' twice", line: record.line) }
                    }
                    inference = Array(repeating: CSVColumnTypeInference(detectsDates: true), count: names.count)
                    largestNumber = Array(repeating: 0, count: names.count)
                    // Only mapped time columns can hold epoch numbers whose unit matters.
                    let timeNames = Set([mapping.time, mapping.end].compactMap { $0.map { Schema.fold($0.trimmingSpaces) } })
                    epochColumns = names.indices.filter { timeNames.contains(Schema.fold(names[$0])) }
                    return
                }
                guard record.fields.count == names.count else {
                    throw CSVError("expected \(names.count) fields as in the header, found \(record.fields.count)", line: record.line)
                }
                rows += 1
                for column in 0..<names.count {
                    inference[column].observe(CSVNumber.trim(record.fields[column]))
                }
                for column in epochColumns {
                    if let number = CSVNumber.double(CSVNumber.trim(record.fields[column])) { largestNumber[column] = max(largestNumber[column], abs(number)) }
                }
            }
        } catch {
            throw failure(error)
        }
        guard !names.isEmpty else { throw FeatureLoadError(file: file, "the CSV text is empty: a header row naming the columns is required") }

        // Coordinates.
        let folded = names.map(Schema.fold)
        func column(_ name: String, role: String) throws(FeatureLoadError) -> Int {
            guard let index = folded.firstIndex(of: Schema.fold(name.trimmingSpaces)) else {
                throw FeatureLoadError(file: file, line: headerLine, "the header has no column '\(name)' (mapped as \(role)); its columns are: \(names.joined(separator: ", "))")
            }
            return index
        }
        var xColumn: Int?, yColumn: Int?
        var notes: [String] = []
        if let x = mapping.x, let y = mapping.y {
            xColumn = try column(x, role: "x")
            yColumn = try column(y, role: "y")
            if xColumn == yColumn { throw FeatureLoadError(file: file, "x and y both name column '\(names[xColumn ?? 0])'") }
        } else if let x = folded.firstIndex(where: { xNames.contains($0) }), let y = folded.firstIndex(where: { yNames.contains($0) }) {
            xColumn = x
            yColumn = y
            notes.append("coordinates from columns '\(names[x])' and '\(names[y])' (choose others with --columns x=COLUMN,y=COLUMN)")
        } else {
            notes.append("no coordinate columns (x/lon/longitude, y/lat/latitude): the CSV is a table")
        }

        // Schema: headers that are not valid field names get valid names
        // (the header stays the alias); the mapping may use either.
        let fieldNames = FieldNaming.validNames(names)
        var mapping = mapping
        func renamed(_ given: String?) -> String? {
            guard let given, let index = folded.firstIndex(of: Schema.fold(given.trimmingSpaces)) else { return given }
            return fieldNames[index]
        }
        mapping.x = renamed(mapping.x)
        mapping.y = renamed(mapping.y)
        mapping.time = renamed(mapping.time)
        mapping.end = renamed(mapping.end)
        mapping.track = renamed(mapping.track)
        mapping.objectID = renamed(mapping.objectID)
        for index in names.indices where fieldNames[index] != names[index] {
            notes.append("column '\(names[index])' is field \(fieldNames[index]) (a valid field name; the header is its alias)")
        }
        let sourceFields = names.indices.map { Field(name: fieldNames[$0], type: inference[$0].fieldType, alias: names[$0]) }
        var plan = try FeatureSchemaPlan(sourceFields: sourceFields, mapping: mapping,
                                         declared: FeatureSchemaPlan.Declared(), file: file)
        plan.notes = notes + plan.notes
        let units = names.indices.map { CSVTime.EpochUnit(largestMagnitude: largestNumber[$0]) }
        let timeColumns = Set([plan.startTimeFieldIndex, plan.endTimeFieldIndex].compactMap { $0 }.map { $0 - plan.shift })
        let wkid = mapping.wkid ?? 4326
        var report = FeatureLoadReport(format: .csv)
        report.notes = plan.notes
        var builder: FeatureTableBuilder
        do throws(FeatureTableError) {
            builder = try FeatureTableBuilder(name: name, schema: plan.schema, objectIDFieldIndex: plan.objectIDFieldIndex,
                                              assignsObjectIDs: plan.assignsObjectIDs, geometryType: xColumn == nil ? .none : .point,
                                              spatialReference: wkid, startTimeFieldIndex: plan.startTimeFieldIndex,
                                              endTimeFieldIndex: plan.endTimeFieldIndex, report: report)
        } catch {
            throw FeatureLoadError(file: file, error.description)
        }
        builder.reserveCapacity(rows)

        // Pass 2: rows.
        var values = [AttributeValue](repeating: .null, count: plan.schema.fields.count)
        var header = true
        do throws(CSVError) {
            try CSVReader.forEachRecord(in: bytes) { (record: CSVRecord) throws(CSVError) in
                if checkpoint.isCancelled() { throw CSVError("cancelled", line: record.line) }
                if header {
                    header = false
                    return
                }
                for column in 0..<names.count {
                    let target = column + plan.shift
                    if timeColumns.contains(column) {
                        let text = CSVNumber.trim(record.fields[column])
                        if text.isEmpty {
                            values[target] = .null
                        } else if let ms = CSVTime.milliseconds(text, unit: units[column]) {
                            values[target] = .date(milliseconds: ms)
                        } else {
                            throw CSVError("time column '\(names[column])': cannot read '\(text)' as a time (expected e.g. 2000-09-01T00:00:00Z, 2000-09-01 06:00:00 as UTC, or epoch seconds or milliseconds)", line: record.line)
                        }
                    } else {
                        values[target] = CSVColumnTypeInference.value(record.fields[column], type: plan.types[target],
                                                                      quoted: record.isQuotedBlank(column))
                    }
                }
                var point: Point?
                if let xColumn, let yColumn {
                    point = try coordinates(record, x: xColumn, y: yColumn, names: names)
                }
                do throws(FeatureTableError) { try builder.append(geometry: point, values: values) } catch {
                    throw CSVError(error.description, line: record.line)
                }
            }
        } catch {
            throw failure(error)
        }
        return builder.build()
    }

    private static func coordinates(_ record: CSVRecord, x: Int, y: Int, names: [String]) throws(CSVError) -> Point? {
        let xText = CSVNumber.trim(record.fields[x])
        let yText = CSVNumber.trim(record.fields[y])
        if xText.isEmpty && yText.isEmpty { return nil }
        for (key, column, text) in [("x", x, xText), ("y", y, yText)] {
            if text.isEmpty { throw CSVError("\(key) column '\(names[column])' is empty while the other coordinate is not", line: record.line) }
            if CSVNumber.double(text) == nil { throw CSVError("\(key) column '\(names[column])': '\(text)' is not a number", line: record.line) }
        }
        guard let xValue = CSVNumber.double(xText), let yValue = CSVNumber.double(yText) else { return nil }
        return Point(x: xValue, y: yValue)
    }
}
