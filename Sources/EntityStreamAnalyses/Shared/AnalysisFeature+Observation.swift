import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures
import EntityStream

extension AnalysisFeature {
    /// A feature from a layer page or a file: its point (if any) and its
    /// attributes named by `fields` (dates as epoch ms, as every line writes them).
    public init(_ observation: Observation, fields: [Field]) {
        self.init(geometry: observation.geometry.map { .point($0) }, attributes: AttributeJSON.attributes(observation, fields: fields),
                  dateAttributes: fields.filter { $0.type == .date }.map(\.name))
    }

    /// Row `row` of `table`, with the attributes of `fields` (schema indices).
    public init(table: FeatureTable, row: Int, fields: [Int], geometry: Point?) {
        var attributes = JSONObject()
        for index in fields { attributes.append(key: table.schema.fields[index].name, value: AttributeJSON.value(table.value(row: row, field: index))) }
        self.init(geometry: geometry.map { .point($0) }, attributes: attributes,
                  dateAttributes: fields.filter { table.schema.fields[$0].type == .date }.map { table.schema.fields[$0].name })
    }
}
