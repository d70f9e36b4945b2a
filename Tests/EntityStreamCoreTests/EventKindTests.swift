import EntityStreamCore
import EntityStreamTestSupport
import Testing

@Suite("Event kind lists", .bounded)
struct EventKindTests {
    /// An `--events` list is read with spaces, tabs and line breaks around
    /// names ignored, `all` meaning every kind; an unknown name is reported
    /// as written (trimmed).
    @Test func parsesTrimmedNames() throws {
        #expect(try EventKind.parseList(" observation ,\tentity-purged\r\n") == [.observation, .entityPurged])
        #expect(try EventKind.parseList("status, all") == Set(EventKind.allCases))
        let error = #expect(throws: EventKindError.unknownKind("purged")) { try EventKind.parseList("observation, purged ") }
        #expect(error?.description == "unknown event kind 'purged' (expected status, observation, entity-received, observation-purged, entity-purged, filter, error, response, dropped, analysis or all)")
    }
}
