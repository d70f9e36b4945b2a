import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures

/// Primes a stream's store from its `keepLatestArchive` layer, as the ArcGIS
/// JS StreamLayer does before opening the socket: one paged query with the
/// connection filter's where clause, envelope, outFields (plus the track-id
/// field, which the store needs) and outSR, returning geometry.
///
/// Each page's features are aligned to the stream's schema by field name
/// (``SchemaAlignment``: archive fields the stream lacks, such as its object
/// id, are not carried), stamped with the clock's time, joined to the
/// related features when there are any, and handed to the sink's
/// ``StreamConnectionSink/receivePrimed(_:)`` page by page, in the
/// archive's order (object id) — so they reach the store and the bus before
/// any live message. ``run(sink:)`` never throws: a failure after some pages
/// leaves those primed and answers ``Outcome/failed(_:delivered:)`` with a
/// ``FeatureLayerError`` text (no token in it). A plain value.
struct ArchivePrimer: Sendable {
    typealias Outcome = ArchivePriming.Outcome

    let archive: KeepLatestArchive
    let filter: StreamFilter
    /// The stream's schema (with the related fields, when joined).
    let schema: Schema
    let join: RelatedFeatureJoin?
    let clientOptions: FeatureLayerClientOptions

    /// The archive query the filter asks for.
    var query: FeatureQuery {
        var query = FeatureQuery(whereClause: filter.effectiveWhereClause, geometry: filter.geometry, returnGeometry: true,
                                 outSpatialReference: filter.outSpatialReference)
        if var fields = filter.outFields, !fields.contains("*") {
            if let track = schema.trackIDField?.name, !fields.contains(where: { Schema.fold($0) == Schema.fold(track) }) {
                fields.append(track)
            }
            query.outFields = fields
        }
        return query
    }

    func run(sink: any StreamConnectionSink) async -> Outcome {
        let client: FeatureLayerClient
        do { client = try FeatureLayerClient(layerURL: archive.featuresURL, options: clientOptions) } catch {
            return .failed(error.description, delivered: 0)
        }
        var delivered = 0
        var pages = 0
        var alignment: (source: Schema, alignment: SchemaAlignment)?
        var messages: [StreamMessage] = []
        do {
            for try await page in client.pages(query) {
                if alignment?.source != page.schema { alignment = (page.schema, SchemaAlignment(from: page.schema, to: schema)) }
                guard let align = alignment?.alignment else { continue }
                let now = clientOptions.clock.now()
                messages.removeAll(keepingCapacity: true)
                messages.reserveCapacity(page.features.count)
                for feature in page.features {
                    var observation = align.align(feature)
                    observation.receivedAt = now
                    join?.join(&observation)
                    messages.append(.observation(observation))
                }
                pages += 1
                guard !messages.isEmpty else { continue }
                delivered += messages.count
                await sink.receivePrimed(messages)
            }
        } catch let error as FeatureLayerError {
            if case .request(.cancelled) = error { return .cancelled }
            return Task.isCancelled ? .cancelled : .failed(error.description, delivered: delivered)
        } catch {
            return Task.isCancelled ? .cancelled : .failed("\(error)", delivered: delivered)
        }
        return .primed(count: delivered, pages: pages)
    }
}
