import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// Building the stream service's URLs: the description request and the
/// subscribe URL, and redacting tokens for display.
public enum ServiceURLs {
    /// `<service>?f=json[&token=…]`, keeping any query the user gave.
    public static func descriptionURL(service: String, token: String?) -> String {
        var base = service
        while base.hasSuffix("/") { base.removeLast() }
        var items: [(String, String)] = [("f", "json")]
        if let token, !token.isEmpty { items.append(("token", token)) }
        return append(items, to: base)
    }

    /// `<base>/subscribe?token=…&outSR=…&where=…&geometry=…&outFields=…`.
    public static func subscribeURL(base: String, token: String?, filter: StreamFilter) -> String {
        var url = base
        while url.hasSuffix("/") { url.removeLast() }
        if !url.hasSuffix("/subscribe") { url += "/subscribe" }
        var items: [(String, String)] = []
        if let token, !token.isEmpty { items.append(("token", token)) }
        items.append(contentsOf: filter.subscribeQueryItems())
        return append(items, to: url)
    }

    /// `url` with every credential (`token=…`) replaced by `***` (see ``Redaction``).
    public static func redacted(_ url: String) -> String {
        Redaction.redactedURL(url)
    }

    private static func append(_ items: [(String, String)], to url: String) -> String {
        guard !items.isEmpty else { return url }
        let separator = url.contains("?") ? "&" : "?"
        return url + separator + items.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
    }
}
