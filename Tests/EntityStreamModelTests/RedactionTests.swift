import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("Redaction: credentials never reach a printed or stored text", .bounded)
struct RedactionTests {
    /// Every credential parameter is masked wherever it stands — in a URL, an
    /// error quoting one, a body excerpt — and nothing else changes.
    @Test(arguments: [
        ("HTTP GET https://h/arcgis/rest/services/S/StreamServer?f=json&token=abc.DEF-123_x timed out after 30 s",
         "HTTP GET https://h/arcgis/rest/services/S/StreamServer?f=json&token=*** timed out after 30 s"),
        ("WebSocket open ws://h:1/s/subscribe?token=t0k%2Fen&where=speed%20%3E%200 timed out",
         "WebSocket open ws://h:1/s/subscribe?token=***&where=speed%20%3E%200 timed out"),
        ("invalid URL 'ws://bad host/x?TOKEN=secret': spaces", "invalid URL 'ws://bad host/x?TOKEN=***': spaces"),
        ("a?access_token=1&password=2&tokens=3&mytoken=4", "a?access_token=***&password=***&tokens=3&mytoken=4"),
        ("token=first then token=second, done", "token=*** then token=***, done"),
        ("no credential here; token is a word", "no credential here; token is a word"),
        ("token=", "token="),
        ("", ""),
    ] as [(String, String)])
    func parametersAreMasked(text: String, expected: String) {
        #expect(Redaction.redact(text) == expected)
    }

    /// The password of a URL's user information is masked wherever a URL stands (the "invalid
    /// URL" error used to print it); the user name, hosts, paths and texts without one stay.
    @Test(arguments: [
        ("invalid URL 'http://user:pw@example.com:8443/x?f=json': bad port", "invalid URL 'http://user:***@example.com:8443/x?f=json': bad port"),
        ("wss://ann:s3cr:et@h/s and https://bob:x%40y@h2", "wss://ann:***@h/s and https://bob:***@h2"),
        ("http://user@host/a:b@c", "http://user@host/a:b@c"),
        ("http://user:@host", "http://user:***@host"),
        ("http://host:80/path?q=a:b@c", "http://host:80/path?q=a:b@c"),
        ("not a URL: a:b@c and ://", "not a URL: a:b@c and ://"),
        ("http://u:***@h", "http://u:***@h"),
    ] as [(String, String)])
    func userInfoPasswordsAreMasked(text: String, expected: String) {
        #expect(Redaction.redact(text) == expected)
    }

    /// JSON members named like a credential lose their string value, with any
    /// spacing and escapes; other members, and look-alike keys, stay.
    @Test func jsonMembersAreMasked() {
        let body = #"{"streamUrls":[{"urls":["ws://h/s"],"token" : "se\"cret"}],"mytoken":"x","access_token":"y","tokenized":"z"}"#
        #expect(Redaction.redact(body) == #"{"streamUrls":[{"urls":["ws://h/s"],"token" : "***"}],"mytoken":"x","access_token":"***","tokenized":"z"}"#)
    }

    /// A known secret is masked wherever it appears, as is and percent-encoded,
    /// however the text quotes it; a too-short secret is left to the parameter rule.
    @Test func knownSecretsAreMaskedAnywhere() {
        let secret = "s3cr/et+token"
        let text = "path /x/s3cr/et+token/y and s3cr%2Fet%2Btoken and s3cr/et+tokens3cr/et+token"
        let redacted = Redaction.redact(text, secrets: [secret, nil, "ab"])
        #expect(!redacted.contains("s3cr"))
        #expect(redacted == "path /x/***/y and *** and ******")
        #expect(Redaction.redact("ab cab", secrets: ["ab"]) == "ab cab")
    }

    /// Redacting twice changes nothing more (masks are not re-masked), and the
    /// work is linear: a megabyte of overlapping near-matches is quick.
    @Test func redactionIsIdempotentAndLinear() {
        let once = Redaction.redact("u?token=abc&x=1", secrets: ["abc"])
        #expect(Redaction.redact(once, secrets: ["abc"]) == once)
        let haystack = String(repeating: "a", count: 1 << 20) + "b"
        let needle = String(repeating: "a", count: 4096) + "b"
        let redacted = Redaction.redact(haystack, secrets: [needle])
        #expect(redacted == String(repeating: "a", count: (1 << 20) - 4096) + "***")
        let parameters = String(repeating: "token=", count: 100_000)
        #expect(Redaction.redact(parameters) == "token=***")
    }

    /// A stored description keeps its stream URLs but no token member, at any
    /// depth, and its URLs' token parameters are masked.
    @Test func storedValuesKeepNoCredential() throws {
        let description = try JSONParser.parse(#"{"name":"S","streamUrls":[{"transport":"ws","urls":["wss://h/s?token=q1"],"token":"socket-secret"}],"nested":{"Token":"x","keep":"token-free"}}"#)
        let stored = Redaction.withoutCredentials(description)
        #expect(stored == (try JSONParser.parse(#"{"name":"S","streamUrls":[{"transport":"ws","urls":["wss://h/s?token=***"]}],"nested":{"keep":"token-free"}}"#)))
    }

    /// Any text becomes one line: line breaks of every kind and runs of
    /// spaces and controls become one space, the ends are trimmed, and long
    /// texts are cut with an ellipsis.
    @Test func oneLine() {
        let html = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\n\t<h1>Not Found</h1>\n</body>\u{2028}</html>\n"
        #expect(OneLine.text(html) == "<html> <head><title>404 Not Found</title></head> <body> <h1>Not Found</h1> </body> </html>")
        #expect(OneLine.text("  a \u{0}\u{7F}\u{85} b  ") == "a b")
        #expect(OneLine.text(String(repeating: "x", count: 10), maximumLength: 4) == "xxxx…")
        #expect(OneLine.text("abcd", maximumLength: 4) == "abcd")
    }
}
