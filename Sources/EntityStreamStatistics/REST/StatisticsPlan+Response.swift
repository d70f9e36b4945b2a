import EntityStreamModel
import EntityStreamFeatures

extension StatisticsPlan {
    /// The records of one page of a server's answer to this plan's request
    /// (``StatisticsRequest/apply(to:plan:)``): each feature's attributes
    /// read by the plan's group-by field names and statistic output names
    /// (ASCII case-insensitively, as servers may change the case), in the
    /// plan's order, with the value kinds this engine gives: `count` an
    /// integer (a whole double becomes one), `sum`/`avg`/`stddev`/`var`
    /// doubles (an integer becomes one), the rest as the server typed them.
    /// - Throws: ``FeatureSetReadError/invalid(_:)`` when the page lacks a
    ///   group-by field or a statistic, or a count is not a whole number.
    public func records(from page: FeatureSetPage) throws(FeatureSetReadError) -> [StatisticsRecord] {
        try records(from: page, applyingHaving: false).records
    }

    /// ``records(from:)`` of an answer to ``applyForLocalHaving(to:)``'s
    /// query when `applyingHaving`: every statistic the having clause needs
    /// is read too (under ``havingOnlyOutputNames``), the clause is applied
    /// here to each group, and the groups it drops are counted.
    public func records(from page: FeatureSetPage, applyingHaving: Bool) throws(FeatureSetReadError) -> (records: [StatisticsRecord], dropped: Int) {
        let filter = applyingHaving ? having : nil
        let outputNames = filter == nil ? statisticNames : statisticNames + havingOnlyOutputNames
        var groupColumns: [Int] = []
        for name in groupFieldNames {
            guard let index = page.schema.index(ofField: name) else {
                throw .invalid(.noGroupByField(name, fields: page.schema.fields.map(\.name)))
            }
            groupColumns.append(index)
        }
        var statisticColumns: [Int] = []
        for name in outputNames {
            guard let index = page.schema.index(ofField: name) else {
                throw .invalid(.noStatistic(name, fields: page.schema.fields.map(\.name)))
            }
            statisticColumns.append(index)
        }
        var records: [StatisticsRecord] = []
        var dropped = 0
        records.reserveCapacity(page.features.count)
        for (number, feature) in page.features.enumerated() {
            let group = zip(groupFieldNames, groupColumns).map { NamedValue(name: $0, value: feature.attribute($1)) }
            var values: [AttributeValue] = []
            values.reserveCapacity(outputNames.count)
            for (position, column) in statisticColumns.enumerated() {
                var value = feature.attribute(column)
                switch (outputs[position].type, value) {
                case (.count, .double(let x)):
                    guard let whole = Int64(exactly: x) else {
                        throw .invalid(.fractionalCount(index: number, name: outputNames[position], value: x))
                    }
                    value = .int(whole)
                case (.sum, .int(let i)), (.avg, .int(let i)), (.stddev, .int(let i)), (.var, .int(let i)):
                    value = .double(Double(i))
                default:
                    break
                }
                values.append(value)
            }
            if let filter, !filter.keeps(values) {
                dropped += 1
                continue
            }
            let statistics = zip(statisticNames, values).map { NamedValue(name: $0, value: $1) }
            records.append(StatisticsRecord(group: group, statistics: statistics))
        }
        return (records, dropped)
    }

    /// The statistics only the having clause needs: their type and source
    /// field (``StatisticDefinition/allRows`` for `*`), in output order.
    public var havingOnlyOutputs: [(type: StatisticType, field: String)] {
        outputs[statisticNames.count...].map { ($0.type, $0.fieldName ?? StatisticDefinition.allRows) }
    }

    /// True when the request has a having clause.
    public var hasHaving: Bool { having != nil }

    /// The output names under which the statistics only the having clause
    /// needs are asked for when it is applied here (`HAVING_1`, …, made
    /// unique against the group-by fields and statistic names).
    public var havingOnlyOutputNames: [String] {
        var used = Set((groupFieldNames + statisticNames).map(Schema.fold))
        var names: [String] = []
        var next = 1
        for _ in statisticNames.count..<outputs.count {
            var name = "HAVING_\(next)"
            while used.contains(Schema.fold(name)) {
                next += 1
                name = "HAVING_\(next)"
            }
            used.insert(Schema.fold(name))
            names.append(name)
            next += 1
        }
        return names
    }

    /// The records of a result table this plan's request produced through a
    /// ``FeatureQueryEngine`` with ``TableStatisticsEngine`` (a local file
    /// queried as a layer would be): row values are read by position, the
    /// group-by values first, then the statistics; a short row reads NULL.
    public func records(from result: FeatureStatisticsResult) -> [StatisticsRecord] {
        let width = groupFieldNames.count
        return result.rows.map { row in
            func value(_ column: Int) -> AttributeValue { column < row.count ? row[column] : .null }
            return StatisticsRecord(group: groupFieldNames.enumerated().map { NamedValue(name: $1, value: value($0)) },
                                    statistics: statisticNames.enumerated().map { NamedValue(name: $1, value: value(width + $0)) })
        }
    }
}
