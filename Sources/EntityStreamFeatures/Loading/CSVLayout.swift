import EntityStreamModel
/// How a CSV's columns become a table, decided once from its header, the
/// column mapping and what the values of the whole file call for (each
/// column's inferred type, and the unit of numeric time columns): the
/// coordinate columns, the schema (``FeatureSchemaPlan``), the time columns
/// and their epoch units. ``CSVFeatureLoader`` and the streamed reader
/// (``CSVChunkParser``) both build their tables from it, so a file loaded
/// whole and a file streamed in chunks are the same table.
///
/// ``key`` is what depends on the values (types and units): two layouts of
/// one header and mapping with equal keys are equal. A plain value.
package struct CSVLayout: Sendable {
    /// What a layout depends on besides the header: per column its type, and per epoch column its unit.
    package struct Key: Sendable, Hashable {
        package var types: [FieldType]
        package var units: [CSVTime.EpochUnit]
    }

    let file: String
    /// Header names (trimmed), in column order.
    let names: [String]
    let headerLine: Int
    package let key: Key
    package let xColumn: Int?
    let yColumn: Int?
    package let plan: FeatureSchemaPlan
    /// Per column, the unit of its numbers when it is a time column.
    let units: [CSVTime.EpochUnit]
    /// Per column: true when it is the start or end time column.
    package let isTimeColumn: [Bool]
    let wkid: Int
    let mapping: FeatureColumnMapping

    /// Checks a header record and returns its names (trimmed).
    static func headerNames(_ fields: [String], line: Int) throws(CSVError) -> [String] {
        let names = fields.map { String(CSVNumber.trim($0)) }
        var seen: Set<String> = []
        for (column, name) in names.enumerated() {
            guard !name.isEmpty else { throw CSVError(.headerColumnWithoutName(column: column + 1), line: line) }
            guard seen.insert(Schema.fold(name)).inserted else { throw CSVError(.headerColumnTwice(name), line: line) }
        }
        return names
    }

    /// The columns whose numbers are epoch times whose unit matters: the mapped time columns.
    package static func epochColumns(_ names: [String], mapping: FeatureColumnMapping) -> [Int] {
        let timeNames = Set([mapping.time, mapping.end].compactMap { $0.map { Schema.fold($0.trimmingSpaces) } })
        return names.indices.filter { timeNames.contains(Schema.fold(names[$0])) }
    }

    /// Decides the layout. `types` is each column's inferred type;
    /// `largestNumber` each column's largest absolute number (read for the epoch columns only).
    init(names: [String], headerLine: Int, types: [FieldType], largestNumber: [Double], mapping: FeatureColumnMapping,
         file: String) throws(FeatureLoadError) {
        self.file = file
        self.names = names
        self.headerLine = headerLine
        let epoch = Set(Self.epochColumns(names, mapping: mapping))
        let units = names.indices.map { CSVTime.EpochUnit(largestMagnitude: epoch.contains($0) ? largestNumber[$0] : 0) }
        key = Key(types: types, units: names.indices.filter { epoch.contains($0) }.map { units[$0] })
        self.units = units

        // Coordinates.
        let folded = names.map(Schema.fold)
        func column(_ name: String, role: String) throws(FeatureLoadError) -> Int {
            guard let index = folded.firstIndex(of: Schema.fold(name.trimmingSpaces)) else {
                throw FeatureLoadError(file: file, line: headerLine, .csv(.missingColumn(name, role: role, columns: names)))
            }
            return index
        }
        var xColumn: Int?, yColumn: Int?
        var notes: [String] = []
        if let x = mapping.x, let y = mapping.y {
            xColumn = try column(x, role: "x")
            yColumn = try column(y, role: "y")
            if xColumn == yColumn { throw FeatureLoadError(file: file, .sameCoordinateColumn(names[xColumn ?? 0])) }
        } else if let x = folded.firstIndex(where: { CSVFeatureLoader.xNames.contains($0) }),
                  let y = folded.firstIndex(where: { CSVFeatureLoader.yNames.contains($0) }) {
            xColumn = x
            yColumn = y
            notes.append("coordinates from columns '\(names[x])' and '\(names[y])' (choose others with --columns x=COLUMN,y=COLUMN)")
        } else {
            notes.append("no coordinate columns (x/lon/longitude, y/lat/latitude): the CSV is a table")
        }
        self.xColumn = xColumn
        self.yColumn = yColumn

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
        self.mapping = mapping
        for index in names.indices where fieldNames[index] != names[index] {
            notes.append("column '\(names[index])' is field \(fieldNames[index]) (a valid field name; the header is its alias)")
        }
        let sourceFields = names.indices.map { Field(name: fieldNames[$0], type: types[$0], alias: names[$0]) }
        var plan = try FeatureSchemaPlan(sourceFields: sourceFields, mapping: mapping, declared: FeatureSchemaPlan.Declared(), file: file)
        plan.notes = notes + plan.notes
        self.plan = plan
        let timeColumns = Set([plan.startTimeFieldIndex, plan.endTimeFieldIndex].compactMap { $0 }.map { $0 - plan.shift })
        isTimeColumn = names.indices.map { timeColumns.contains($0) }
        wkid = mapping.wkid ?? 4326
    }

    /// The layout the evidence calls for.
    package init(names: [String], headerLine: Int, evidence: CSVEvidence, mapping: FeatureColumnMapping, file: String) throws(FeatureLoadError) {
        try self.init(names: names, headerLine: headerLine, types: evidence.columns.map(\.fieldType), largestNumber: evidence.largestNumber,
                      mapping: mapping, file: file)
    }

    /// An empty table builder for this layout (`name`: the table's name).
    package func builder(name: String, format: FeatureFileFormat = .csv) throws(FeatureLoadError) -> FeatureTableBuilder {
        var report = FeatureLoadReport(format: format)
        report.notes = plan.notes
        do throws(FeatureTableError) {
            return try FeatureTableBuilder(name: name, schema: plan.schema, objectIDFieldIndex: plan.objectIDFieldIndex,
                                           assignsObjectIDs: plan.assignsObjectIDs, geometryType: xColumn == nil ? .none : .point,
                                           spatialReference: wkid, startTimeFieldIndex: plan.startTimeFieldIndex,
                                           endTimeFieldIndex: plan.endTimeFieldIndex, report: report)
        } catch {
            throw FeatureLoadError(file: file, .table(error))
        }
    }
}

/// What a CSV's values say about its columns, gathered row by row and
/// mergeable in any order: each column's type inference and the largest
/// absolute number of each column (read for epoch columns). A plain value.
package struct CSVEvidence: Sendable {
    package var columns: [CSVColumnTypeInference]
    var largestNumber: [Double]

    init(columnCount: Int) {
        columns = Array(repeating: CSVColumnTypeInference(detectsDates: true), count: columnCount)
        largestNumber = Array(repeating: 0, count: columnCount)
    }

    package mutating func merge(_ other: CSVEvidence) {
        for index in columns.indices {
            columns[index].merge(other.columns[index])
            largestNumber[index] = max(largestNumber[index], other.largestNumber[index])
        }
    }
}
