import EntityStreamCore
import Testing

private func parse(_ line: String) throws(ControlCommandError) -> ControlCommand {
    try ControlCommand.parse(line: Array(line.utf8))
}

@Suite("Control commands")
struct ControlCommandTests {
    /// query-entities takes the geometry as text or an envelope object, and track ids as the values they are stored under.
    @Test(.timeLimit(.minutes(1))) func queryEntitiesMembers() throws {
        guard case .queryEntities(let id, let whereClause, let envelope, let trackIDs, let history) = try parse(
            #"{"id":"q","command":"query-entities","where":"speed > 5","geometry":{"xmin":-112,"ymin":40,"xmax":-111,"ymax":41},"trackIds":["TRUCK 3",7,7.0,8.5],"observations":-1}"#)
        else { Issue.record("not a query"); return }
        #expect(id == .string("q"))
        #expect(whereClause == "speed > 5")
        #expect(envelope == Envelope(xmin: -112, ymin: 40, xmax: -111, ymax: 41))
        #expect(trackIDs == [.string("TRUCK 3"), .int(7), .int(7), .double(8.5)])
        #expect(history == -1)
        guard case .queryEntities(_, _, let textEnvelope, _, _) = try parse(#"{"id":1,"command":"query-entities","geometry":"-112,40,-111,41,4326"}"#)
        else { Issue.record("not a query"); return }
        #expect(textEnvelope?.wkid == 4326)
    }

    /// Each bad command is refused with its id and a message naming the problem; nothing is silently dropped.
    @Test(.timeLimit(.minutes(1)), arguments: [
        (#"{"id":1,"command":"query-entities","trackIds":["A",null]}"#, "trackIds[1] must be a string or a number, not null"),
        (#"{"id":1,"command":"query-entities","trackIds":[{"a":1}]}"#, #"trackIds[0] must be a string or a number, not {"a":1}"#),
        (#"{"id":1,"command":"query-entities","trackIds":"A"}"#, "\"trackIds\" must be an array"),
        (#"{"id":1,"command":"query-entities","observations":-2}"#, "\"observations\" must be a count"),
        (#"{"id":1,"command":"query-entities","geometry":"1,2,3"}"#, "geometry"),
        (#"{"id":1,"command":"purge-all","force":true}"#, "unknown member 'force' for purge-all"),
        (#"{"id":1,"command":"launch"}"#, "unknown command 'launch'"),
        (#"{"id":1,"command":"set-filter"}"#, "missing \"filter\""),
    ] as [(String, String)])
    func badCommandsAreNamed(line: String, expected: String) {
        do {
            _ = try parse(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.id == .int(1))
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }
}
