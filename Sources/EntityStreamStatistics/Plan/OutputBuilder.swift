import EntityStreamModel

/// Collects a plan's outputs and the per-field inputs they read, sharing
/// one input per field and one output per (type, field) among having-only
/// statistics. Used only while compiling a ``StatisticsPlan``.
struct OutputBuilder {
    private(set) var inputs: [StatisticsInput] = []
    private(set) var outputs: [StatisticsOutput] = []

    /// Adds an output (`field` nil for `*`) and returns its index.
    @discardableResult
    mutating func append(name: String, type: StatisticType, field: (index: Int, field: Field)?) -> Int {
        var inputIndex: Int?
        if let field {
            let existing = inputs.firstIndex { $0.fieldIndex == field.index }
            let index = existing ?? inputs.count
            if existing == nil { inputs.append(StatisticsInput(fieldIndex: field.index)) }
            switch type {
            case .sum, .avg: inputs[index].needsSum = true
            case .stddev, .var: inputs[index].needsMoments = true
            case .min, .max: inputs[index].needsExtremes = true
            case .count: break
            }
            inputIndex = index
        }
        outputs.append(StatisticsOutput(name: name, type: type, input: inputIndex, fieldType: field?.field.type, fieldName: field?.field.name))
        return outputs.count - 1
    }

    /// The index of an output computing `type` of `field` (nil: `*`),
    /// adding an unnamed one when none exists yet.
    mutating func output(type: StatisticType, field: (index: Int, field: Field)?) -> Int {
        if let existing = outputs.firstIndex(where: { output in
            output.type == type && output.input.map { inputs[$0].fieldIndex } == field?.index
        }) {
            return existing
        }
        return append(name: "", type: type, field: field)
    }
}
