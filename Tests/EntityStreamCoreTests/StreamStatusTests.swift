import EntityStreamCore
import EntityStreamTestSupport
import Testing

@Suite("Stream status: the word every analysis carries", .bounded)
struct StreamStatusTests {
    /// A live stream says its connection's status; a replay says replaying, then ended; a consumer says consuming.
    @Test func words() {
        let expected: [(StreamStatus, String)] = [
            (.connection(.disconnected), "disconnected"), (.connection(.connecting), "connecting"),
            (.connection(.connected), "connected"), (.connection(.failed), "failed"),
            (.replaying, "replaying"), (.ended, "ended"), (.consuming, "consuming"),
        ]
        for (status, word) in expected { #expect(status.description == word) }
    }
}
