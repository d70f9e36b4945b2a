import EntityStreamCore
import EntityStreamFeatures

/// What a whole paged query did: features delivered, pages, requests sent
/// and how it paged. A plain value, for the summary line of a query.
public struct FeatureQuerySummary: Sendable, Hashable {
    public var featureCount: Int
    public var pageCount: Int
    public var requestCount: Int
    public var strategy: FeatureQueryPager.Strategy

    public init(featureCount: Int, pageCount: Int, requestCount: Int, strategy: FeatureQueryPager.Strategy) {
        self.featureCount = featureCount
        self.pageCount = pageCount
        self.requestCount = requestCount
        self.strategy = strategy
    }
}
