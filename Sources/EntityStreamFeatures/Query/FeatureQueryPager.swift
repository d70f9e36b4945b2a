import EntityStreamModel
/// Plans the requests that fetch a whole query from a layer, one page at a
/// time, the way ArcGIS clients do — a pure state machine the feature-layer
/// client drives (``nextRequest()``, then ``received(featureCount:exceededTransferLimit:)``
/// or ``received(objectIDs:)``).
///
/// Strategies (``strategy``):
/// - ``Strategy/pages(size:)`` when the layer `supportsPagination`: repeat
///   with `resultOffset` += features received, `resultRecordCount` = the page
///   size (`maxRecordCount`), while the server says `exceededTransferLimit`.
///   The order is made stable: the query's `orderByFields` then the object
///   id (or the object id alone).
/// - ``Strategy/objectIDBatches(size:)`` when it cannot page: first
///   `returnIdsOnly`, then the features by `objectIds` in batches of at most
///   `maxRecordCount`, in the order the ids came (ascending without
///   `orderByFields`).
/// - Statistics queries page their result rows (groups) the same way,
///   ``Strategy/pages(size:)`` when the layer `supportsPagination`, in a
///   stable order: the query's `orderByFields` then every group-by field
///   not yet in it (object ids mean nothing there); otherwise
///   ``Strategy/single`` (one request; an answer that still says
///   `exceededTransferLimit` is an error, never a silent truncation).
/// The query's own `resultOffset`/`resultRecordCount` select a window of the
/// whole result (skip, limit) rather than a page. A server that claims more
/// but sends nothing, or cuts an id batch short, makes the pager throw
/// ``FeatureQueryPagerError`` instead of looping or losing rows. A value type.
public struct FeatureQueryPager: Sendable {
    /// How the pager fetches a query (see the type's contract).
    public enum Strategy: Sendable, Hashable {
        case single
        case pages(size: Int)
        case objectIDBatches(size: Int)
    }

    public let strategy: Strategy
    public let query: FeatureQuery
    /// Features received so far.
    public private(set) var delivered = 0
    /// Requests planned so far.
    public private(set) var requests = 0

    private enum State: Sendable {
        case send(offset: Int)
        case awaitingPage(offset: Int, asked: Int)
        case awaitingIDs
        case batches([[Int64]], next: Int)
        case awaitingBatch([[Int64]], next: Int, size: Int)
        case done
    }

    private var state: State
    private let limit: Int?
    private let stableOrder: [OrderByField]

    public init(query: FeatureQuery, layer: LayerDescription) {
        self.query = query
        let size = layer.effectiveMaxRecordCount
        limit = query.resultRecordCount
        var order = query.orderBy
        if query.isStatisticsQuery {
            let groupFields = query.outStatistics == nil ? (query.outFields ?? []) : query.groupByFieldsForStatistics
            for field in groupFields where !order.contains(where: { Schema.fold($0.field) == Schema.fold(field) }) {
                order.append(OrderByField(field: field))
            }
        } else if let objectIDField = layer.objectIDField,
           !order.contains(where: { Schema.fold($0.field) == Schema.fold(objectIDField) }),
           layer.advancedQueryCapabilities?.supportsOrderBy ?? true {
            order.append(OrderByField(field: objectIDField))
        }
        stableOrder = order
        if query.isStatisticsQuery {
            if layer.supportsPagination {
                strategy = .pages(size: size)
                state = .send(offset: query.resultOffset ?? 0)
            } else {
                strategy = .single
                state = .send(offset: 0)
            }
        } else if layer.supportsPagination {
            strategy = .pages(size: size)
            state = .send(offset: query.resultOffset ?? 0)
        } else if layer.objectIDField != nil {
            strategy = .objectIDBatches(size: size)
            state = .awaitingIDs
        } else {
            strategy = .single
            state = .send(offset: 0)
        }
        if limit == 0 { state = .done }
    }

    /// True once every request has been answered.
    public var isFinished: Bool {
        if case .done = state { return true }
        return false
    }

    /// True when the next answer expected is an id list (`returnIdsOnly`).
    public var expectsObjectIDs: Bool {
        if case .awaitingIDs = state { return true }
        return false
    }

    /// The next request to send, or nil when finished. Calling it again
    /// before the answer is reported returns the same request.
    public mutating func nextRequest() -> FeatureQuery? {
        switch state {
        case .done:
            return nil
        case .send(let offset), .awaitingPage(let offset, _):
            var request = query
            switch strategy {
            case .pages(let size):
                let asked = min(size, limit.map { $0 - delivered } ?? size)
                request.orderBy = stableOrder
                request.resultOffset = offset
                request.resultRecordCount = asked
                if case .send = state { requests += 1 }
                state = .awaitingPage(offset: offset, asked: asked)
            default:
                if case .send = state { requests += 1 }
                state = .awaitingPage(offset: 0, asked: 0)
            }
            return request
        case .awaitingIDs:
            var request = query
            request.returnIDsOnly = true
            request.resultOffset = nil
            request.resultRecordCount = nil
            request.outFields = []
            request.returnGeometry = false
            if requests == 0 { requests = 1 }
            return request
        case .batches(let batches, let next), .awaitingBatch(let batches, let next, _):
            var request = query
            request.objectIDs = batches[next]
            request.resultOffset = nil
            request.resultRecordCount = nil
            if case .batches = state { requests += 1 }
            state = .awaitingBatch(batches, next: next, size: batches[next].count)
            return request
        }
    }

    /// Reports the features of the answer to the last request.
    public mutating func received(featureCount: Int, exceededTransferLimit: Bool) throws(FeatureQueryPagerError) {
        switch state {
        case .awaitingPage(let offset, _):
            delivered += featureCount
            switch strategy {
            case .pages:
                if !exceededTransferLimit || (limit.map { delivered >= $0 } ?? false) {
                    state = .done
                } else if featureCount == 0 {
                    state = .done
                    throw .emptyPage(offset: offset)
                } else {
                    state = .send(offset: offset + featureCount)
                }
            default:
                state = .done
                if exceededTransferLimit && query.isStatisticsQuery {
                    throw .tooManyGroups(received: featureCount)
                }
                if exceededTransferLimit {
                    throw .tooManyFeatures(received: featureCount)
                }
            }
        case .awaitingBatch(let batches, let next, let size):
            delivered += featureCount
            if exceededTransferLimit {
                state = .done
                throw .batchCutShort(size: size, received: featureCount)
            }
            state = next + 1 < batches.count ? .batches(batches, next: next + 1) : .done
        default:
            throw .unexpectedFeatures
        }
    }

    /// Reports the answer to the id request: the matching object ids.
    public mutating func received(objectIDs: [Int64]) throws(FeatureQueryPagerError) {
        guard case .awaitingIDs = state, case .objectIDBatches(let size) = strategy else {
            throw .unexpectedObjectIDs
        }
        var seen = Set<Int64>()
        var ids = objectIDs.filter { seen.insert($0).inserted }
        if query.orderBy.isEmpty { ids.sort() }
        let skip = min(query.resultOffset ?? 0, ids.count)
        var window = Array(ids[skip...])
        if let limit, window.count > limit { window.removeSubrange(limit...) }
        let batches = stride(from: 0, to: window.count, by: size).map { Array(window[$0..<min($0 + size, window.count)]) }
        state = batches.isEmpty ? .done : .batches(batches, next: 0)
    }
}

/// A server answer that breaks the paging protocol, by what happened.
public enum FeatureQueryPagerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server said more features match (exceededTransferLimit) but sent none at `offset`.
    case emptyPage(offset: Int)
    /// A layer that cannot page answered a statistics query with more groups than one answer holds.
    case tooManyGroups(received: Int)
    /// A layer that cannot page (no pagination, no object ids) holds more matching features than one answer.
    case tooManyFeatures(received: Int)
    /// A batch of `size` object ids came back short, with exceededTransferLimit.
    case batchCutShort(size: Int, received: Int)
    /// Features arrived when none were asked for.
    case unexpectedFeatures
    /// Object ids arrived when none were asked for.
    case unexpectedObjectIDs

    public var description: String {
        switch self {
        case .emptyPage(let offset): return "the server says more features match (exceededTransferLimit) but sent none at offset \(offset)"
        case .tooManyGroups(let received):
            return "the layer cannot page (supportsPagination is false) and has more groups than one answer holds: \(received) received"
        case .tooManyFeatures(let received):
            return "the layer cannot page (no pagination, no object ids) and holds more matching features than one answer: \(received) received"
        case .batchCutShort(let size, let received): return "the server cut a batch of \(size) object ids short (\(received) features, exceededTransferLimit)"
        case .unexpectedFeatures: return "features arrived when none were asked for"
        case .unexpectedObjectIDs: return "object ids arrived when none were asked for"
        }
    }
}
