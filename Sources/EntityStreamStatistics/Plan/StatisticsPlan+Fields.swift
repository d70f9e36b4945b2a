import EntityStreamModel

extension StatisticsPlan {
    /// The fields of a result table as a server declares them: the group-by
    /// fields (their schema type; an object id as an integer), then the
    /// requested statistics by output name — `count` an integer, `sum`,
    /// `avg`, `stddev` and `var` doubles, `min`/`max` the source field's type.
    /// `schema` must be the one the plan was made with.
    public func outputFields(in schema: Schema) -> [Field] {
        func plain(_ type: FieldType) -> FieldType { type == .objectID ? .integer : type }
        var fields: [Field] = []
        for (position, index) in groupFieldIndices.enumerated() {
            let type = schema.fields.indices.contains(index) ? schema.fields[index].type : .string
            fields.append(Field(name: groupFieldNames[position], type: plain(type)))
        }
        for output in outputs.prefix(statisticNames.count) {
            let type: FieldType
            switch output.type {
            case .count: type = .integer
            case .sum, .avg, .stddev, .var: type = .double
            case .min, .max: type = plain(output.fieldType ?? .integer)
            }
            fields.append(Field(name: output.name, type: type))
        }
        return fields
    }
}
