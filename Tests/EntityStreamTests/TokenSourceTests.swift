import EntityStream
import EntityStreamTestSupport
import Testing

@Suite("Token sources", .bounded)
struct TokenSourceTests {
    /// A static token is handed out as given (empty meaning none) and can never be renewed.
    @Test func staticTokens() async {
        #expect(await StaticTokenSource("abc").token() == "abc")
        #expect(await StaticTokenSource("").token() == nil)
        #expect(await StaticTokenSource(nil).token() == nil)
        #expect(await StaticTokenSource("abc").renewToken(rejected: "abc") == .unavailable)
    }

    /// The socket token is the description's when it gives one, else the user's; a renewal offers it only when it changed.
    @Test func socketTokens() async {
        let source = StreamSocketTokenSource(fallback: StaticTokenSource("user"))
        #expect(await source.token() == "user")
        await source.update(descriptionToken: "socket-1")
        #expect(await source.token() == "socket-1")
        #expect(await source.renewToken(rejected: "socket-1") == .unavailable)
        await source.update(descriptionToken: "socket-2")
        #expect(await source.renewToken(rejected: "socket-1") == .renewed("socket-2"))
        await source.update(descriptionToken: nil)
        #expect(await source.renewToken(rejected: "socket-2") == .renewed("user"))
        let none = StreamSocketTokenSource(fallback: StaticTokenSource(nil))
        #expect(await none.renewToken(rejected: nil) == .unavailable)
    }

    /// Redaction removes a token and its percent-encoded form from any text, leaving short non-tokens alone.
    @Test func redaction() {
        #expect("GET http://h/q?token=s3cr+t/x&f=json timed out".redactingToken("s3cr+t/x") == "GET http://h/q?token=***&f=json timed out")
        #expect("token=s3cr%2Bt%2Fx".redactingToken("s3cr+t/x") == "token=***")
        #expect("a secret secret".redactingToken("secret") == "a *** ***")
        #expect("ab".redactingToken("ab") == "ab")
        #expect("nothing here".redactingToken(nil) == "nothing here")
    }
}
