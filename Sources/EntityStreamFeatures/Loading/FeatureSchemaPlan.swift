import EntityStreamModel
/// The schema a loader builds its table with, decided once from the file's
/// own fields (declared or inferred) and the user's ``FeatureColumnMapping``:
/// which field is the object id (or whether one is added), which are the
/// start/end time and track fields, and where each source field lands.
///
/// Rules (see ``FeatureColumnMapping`` for the user's side):
/// - object id: the mapped `oid` field (must be an integer field), else the
///   first field declared `esriFieldTypeOID`, else a new `OBJECTID` field
///   (`OBJECTID_1`, … when that name is taken) put first, with 1, 2, 3…;
/// - start time: none for `time=none`; the mapped field (its type becomes
///   date); the file's declared start field; else the first date field;
/// - end time and track: mapped, else declared.
/// Throws ``FeatureLoadError`` naming a mapped field the file does not have,
/// or one of the wrong type. Internal to the loaders.
package struct FeatureSchemaPlan: Sendable {
    /// What the file itself declares about time and identity (recordings, FeatureSets).
    struct Declared {
        var objectIDField: String?
        var startTimeField: String?
        var endTimeField: String?
        var trackIDField: String?
    }

    package let schema: Schema
    package let objectIDFieldIndex: Int
    package let assignsObjectIDs: Bool
    package let startTimeFieldIndex: Int?
    package let endTimeFieldIndex: Int?
    /// 1 when an object-id field was put first, else 0: source field `i` is schema field `i + shift`.
    let shift: Int
    /// Schema fields whose type is date (values must be converted to `.date`).
    let types: [FieldType]
    var notes: [String] = []

    /// The final index of source field `index`.
    @inline(__always) package func finalIndex(ofSource index: Int) -> Int { index + shift }

    /// `sourceFields` are the file's fields in order with the types the
    /// loader found; mapped time fields are turned into dates here.
    init(sourceFields: [Field], mapping: FeatureColumnMapping, declared: Declared, file: String) throws(FeatureLoadError) {
        var fields = sourceFields
        let lookup = Schema(fields: fields)
        let available = fields.map(\.name)
        func index(_ name: String, role: String) throws(FeatureLoadError) -> Int {
            guard let index = lookup.index(ofField: name) else {
                throw FeatureLoadError(file: file, .mappedFieldMissing(role: role, name: name, fields: available))
            }
            return index
        }
        func declaredIndex(_ name: String?) -> Int? { name.flatMap { lookup.index(ofField: $0) } }

        var notes: [String] = []
        // Time fields (source indices).
        var start: Int?
        if mapping.noTime {
            start = nil
        } else if let name = mapping.time {
            start = try index(name, role: "time")
        } else if let declared = declaredIndex(declared.startTimeField) {
            start = declared
        } else if let firstDate = fields.firstIndex(where: { $0.type == .date }) {
            start = firstDate
            notes.append("time field '\(fields[firstDate].name)' (the first date field; choose another with --columns time=FIELD, or none with time=none)")
        }
        var end: Int?
        if let name = mapping.end {
            end = try index(name, role: "end")
        } else if !mapping.noTime {
            end = declaredIndex(declared.endTimeField)
        }
        if end != nil, start == nil { throw FeatureLoadError(file: file, .endWithoutStart) }
        if let start, let end, start == end { throw FeatureLoadError(file: file, .sameStartAndEnd(fields[start].name)) }
        for index in [start, end].compactMap({ $0 }) where fields[index].type != .date {
            guard fields[index].type != .objectID else {
                throw FeatureLoadError(file: file, .objectIDIsTime(fields[index].name))
            }
            fields[index].type = .date
        }
        let track = try mapping.track.map { (name) throws(FeatureLoadError) in try index(name, role: "track") } ?? declaredIndex(declared.trackIDField)

        // The object id.
        var objectID: Int?
        if let name = mapping.objectID {
            let found = try index(name, role: "oid")
            guard fields[found].type.isInteger else {
                throw FeatureLoadError(file: file, .oidNotInteger(field: fields[found].name, fields[found].type))
            }
            guard found != start, found != end else {
                throw FeatureLoadError(file: file, .oidIsTime(fields[found].name))
            }
            objectID = found
        } else if let declared = declaredIndex(declared.objectIDField), fields[declared].type.isInteger {
            objectID = declared
        } else {
            objectID = fields.firstIndex { $0.type == .objectID }
        }

        var shift = 0
        if let objectID {
            fields[objectID].type = .objectID
            fields[objectID].nullable = false
            objectIDFieldIndex = objectID
            assignsObjectIDs = false
        } else {
            var name = "OBJECTID"
            var suffix = 0
            while lookup.index(ofField: name) != nil {
                suffix += 1
                name = "OBJECTID_\(suffix)"
            }
            fields.insert(Field(name: name, type: .objectID, alias: name, nullable: false), at: 0)
            shift = 1
            objectIDFieldIndex = 0
            assignsObjectIDs = true
            notes.append("object ids assigned in file order as '\(name)' (the file has no object-id field; name one with --columns oid=FIELD)")
        }
        var schema = Schema(fields: fields)
        schema.trackIDIndex = track.map { $0 + shift }
        self.schema = schema
        self.shift = shift
        self.startTimeFieldIndex = start.map { $0 + shift }
        self.endTimeFieldIndex = end.map { $0 + shift }
        self.types = fields.map(\.type)
        self.notes = notes
    }
}
