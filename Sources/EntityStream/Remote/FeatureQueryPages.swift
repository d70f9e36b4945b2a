import EntityStreamCore
import EntityStreamFeatures

/// The pages of one query's features from a ``FeatureLayerClient``, as an
/// `AsyncSequence`: each ``next()`` sends the request(s) for one page (see
/// ``FeatureQueryPager``) and returns it, so nothing is fetched before the
/// consumer asks and at most one page is held here.
///
/// The first page may come after an id request (layers that cannot page);
/// a query matching nothing yields one empty page when the layer pages, and
/// no page otherwise. In id-batch mode each page's features are put in the
/// order of the ids (when the page carries the object-id field). A server
/// that ignores `resultOffset` (a page starting where the previous one did)
/// is an error, not an endless loop. Errors are
/// ``FeatureLayerError`` (cancellation included: ``ArcGISRequestError/cancelled``). Iterate it once.
public struct FeatureQueryPages: AsyncSequence, Sendable {
    public typealias Element = FeatureSetPage

    let client: FeatureLayerClient
    let query: FeatureQuery

    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, query: query)
    }

    /// Fetches one page per ``next()``; not shared between tasks. ``summary``
    /// says what the pages so far came to.
    public struct Iterator: AsyncIteratorProtocol {
        let client: FeatureLayerClient
        let query: FeatureQuery
        private var pager: FeatureQueryPager?
        private var pages = 0
        private var finished = false
        /// The object ids of the previous page's first feature, to catch a
        /// server that ignores `resultOffset` (it would page forever).
        private var previousFirstID: Int64?

        init(client: FeatureLayerClient, query: FeatureQuery) {
            self.client = client
            self.query = query
        }

        /// What the pages so far came to.
        public var summary: FeatureQuerySummary {
            FeatureQuerySummary(featureCount: pager?.delivered ?? 0, pageCount: pages, requestCount: pager?.requests ?? 0,
                                strategy: pager?.strategy ?? .single)
        }

        public mutating func next() async throws -> FeatureSetPage? {
            guard !finished else { return nil }
            do {
                return try await nextPage()
            } catch {
                finished = true
                throw error
            }
        }

        private mutating func nextPage() async throws(FeatureLayerError) -> FeatureSetPage? {
            if Task.isCancelled { throw .request(.cancelled) }
            if pager == nil {
                pager = FeatureQueryPager(query: query, layer: try await client.description())
            }
            guard var pager else { return nil }
            defer { self.pager = pager }
            while let request = pager.nextRequest() {
                if Task.isCancelled { throw .request(.cancelled) }
                if pager.expectsObjectIDs {
                    let ids = try await client.fetchObjectIDs(request)
                    do { try pager.received(objectIDs: ids) } catch { throw .request(.invalidResponse(url: client.displayURL, detail: error.description)) }
                    continue
                }
                var page = try await client.fetchPage(request, index: pages)
                do {
                    try pager.received(featureCount: page.features.count, exceededTransferLimit: page.exceededTransferLimit)
                } catch {
                    throw .request(.invalidResponse(url: client.displayURL, detail: error.description))
                }
                if case .objectIDBatches = pager.strategy, let ids = request.objectIDs { Self.reorder(&page, by: ids) }
                if case .pages = pager.strategy, let first = page.features.first.flatMap({ page.objectID(of: $0) }) {
                    if first == previousFirstID {
                        throw .request(.invalidResponse(url: client.displayURL, detail: "the server ignored resultOffset: page \(pages) starts with the same feature (object id \(first)) as page \(pages - 1)"))
                    }
                    previousFirstID = first
                }
                pages += 1
                return page
            }
            finished = true
            return nil
        }

        /// Puts the page's features in the order of `ids` (features without a
        /// known id keep their place after the ordered ones).
        static func reorder(_ page: inout FeatureSetPage, by ids: [Int64]) {
            var rank: [Int64: Int] = [:]
            for (position, id) in ids.enumerated() where rank[id] == nil { rank[id] = position }
            let keyed = page.features.enumerated().map { (offset, feature) in
                (page.objectID(of: feature).flatMap { rank[$0] } ?? ids.count + offset, feature)
            }
            page.features = keyed.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
