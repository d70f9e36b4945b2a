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
package enum CSVFeatureLoader {
    static let xNames = ["x", "lon", "long", "longitude", "lng"]
    static let yNames = ["y", "lat", "latitude"]

    package static func load(_ bytes: UnsafeBufferPointer<UInt8>, file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        func failure(_ error: CSVError) -> FeatureLoadError { FeatureLoadError(file: file, line: error.line, .csv(error.reason)) }
        // Pass 1: header, shape, types.
        let found: (names: [String], line: Int)?
        do { found = try CSVChunkParser.header(of: bytes) } catch { throw failure(error) }
        guard let header = found else { throw FeatureLoadError(file: file, .csv(.emptyText)) }
        let epochColumns = CSVLayout.epochColumns(header.names, mapping: mapping)
        // A cancelled task stops either pass (checked every 4096 rows).
        let cancelled = { Task.isCancelled }
        let evidence: CSVEvidence
        do {
            evidence = try CSVChunkParser.evidence(of: bytes, atFileStart: true, columnCount: header.names.count, epochColumns: epochColumns,
                                                   shouldStop: cancelled).evidence
        } catch {
            throw failure(error)
        }
        if cancelled() { throw .cancelled(file: file) }
        let layout = try CSVLayout(names: header.names, headerLine: header.line, evidence: evidence, mapping: mapping, file: file)
        // Pass 2: rows.
        let builder = try layout.builder(name: name)
        let table: FeatureTable
        do {
            table = try CSVChunkParser.rows(of: bytes, atFileStart: true, layout: layout, into: builder, collectEvidence: false,
                                            shouldStop: cancelled).builder.build()
        } catch {
            throw failure(error)
        }
        if cancelled() { throw .cancelled(file: file) }
        return table
    }
}
