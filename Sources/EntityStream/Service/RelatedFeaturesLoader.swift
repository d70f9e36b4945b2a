import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures

/// Fetches a stream's `relatedFeatures` layer once, every page, into a
/// ``RelatedTable`` keyed by the join field: `where=1=1`, the member's
/// `outFields` (plus the join field) or every field, no geometry.
///
/// Pages are aligned to the first page's fields (``SchemaAlignment``).
/// ``load()`` throws a readable ``RelatedFeaturesError`` (the
/// ``FeatureLayerError``, which never carries a token, or a missing join field);
/// cancellation throws ``FeatureLayerError/request(_:)`` with ``ArcGISRequestError/cancelled``. A plain value.
struct RelatedFeaturesLoader: Sendable {
    let related: RelatedFeatures
    let clientOptions: FeatureLayerClientOptions

    var query: FeatureQuery {
        var query = FeatureQuery(returnGeometry: false)
        if var fields = related.outFields {
            if !fields.contains(where: { Schema.fold($0) == Schema.fold(related.joinField) }) { fields.append(related.joinField) }
            query.outFields = fields
        }
        return query
    }

    func load() async throws -> RelatedTable {
        let client: FeatureLayerClient
        do { client = try FeatureLayerClient(layerURL: related.featuresURL, options: clientOptions) } catch {
            throw RelatedFeaturesError.unreadable(AnyTypedError(error))
        }
        var schema: Schema?
        var alignment: (source: Schema, alignment: SchemaAlignment)?
        var rows: [[AttributeValue]] = []
        do {
            for try await page in client.pages(query) {
                let target = schema ?? page.schema
                schema = target
                if alignment?.source != page.schema { alignment = (page.schema, SchemaAlignment(from: page.schema, to: target)) }
                guard let align = alignment?.alignment else { continue }
                for feature in page.features { rows.append(align.align(feature).attributes) }
            }
        } catch let error as FeatureLayerError {
            if case .request(.cancelled) = error { throw error }
            throw RelatedFeaturesError.unreadable(AnyTypedError(error))
        }
        return try RelatedTable(schema: schema ?? Schema(fields: []), joinField: related.joinField, rows: rows)
    }
}
