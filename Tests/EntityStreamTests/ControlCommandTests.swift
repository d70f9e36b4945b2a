import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamAnalyses

private func parse(_ line: String) throws(ControlCommandError) -> any ControlCommand {
    try ControlCommandRegistry.standard.parse(line: Array(line.utf8))
}

@Suite("Control commands", .bounded)
struct ControlCommandTests {
    /// query-entities takes the geometry as text or an envelope object, and track ids as the values they are stored under.
    @Test func queryEntitiesMembers() throws {
        let query = try #require(try parse(
            #"{"id":"q","command":"query-entities","where":"speed > 5","geometry":{"xmin":-112,"ymin":40,"xmax":-111,"ymax":41},"trackIds":["TRUCK 3",7,7.0,8.5],"observations":-1}"#)
            as? QueryEntitiesCommand)
        #expect(query.id == .string("q"))
        #expect(query.whereClause == "speed > 5")
        #expect(query.envelope == Envelope(xmin: -112, ymin: 40, xmax: -111, ymax: 41))
        #expect(query.trackIDs == [.string("TRUCK 3"), .int(7), .double(8.5)])
        #expect(query.includeObservations == -1)
        let text = try #require(try parse(#"{"id":1,"command":"query-entities","geometry":"-112,40,-111,41,4326"}"#) as? QueryEntitiesCommand)
        #expect(text.envelope?.wkid == 4326)
    }

    /// query-observations reads its time extent in every documented spelling and keeps the rest for the job.
    @Test func queryObservationsMembers() throws {
        let spellings = [#"{"start":"2026-11-23T08:00:00Z","end":"2026-11-23T09:00:00Z"}"#, #"["2026-11-23T08:00:00Z",1795424400000]"#,
                         #""2026-11-23T10:00:00+02:00,2026-11-23T09:00:00Z""#]
        for spelling in spellings {
            let command = try #require(try parse(#"{"id":1,"command":"query-observations","timeExtent":\#(spelling),"limit":10,"orderBy":"time DESC"}"#)
                                       as? QueryObservationsCommand)
            #expect(command.request.timeExtent == (try TimeExtent(start: 1_795_420_800_000, end: 1_795_424_400_000)))
            #expect(command.request.limit == 10 && command.request.orderBy == "time DESC")
        }
        let open = try #require(try parse(#"{"id":2,"command":"query-observations","timeExtent":{"start":null,"end":0},"outFields":["speed"]}"#)
                                as? QueryObservationsCommand)
        #expect(open.request.timeExtent.start == nil && open.request.timeExtent.end == 0)
        #expect(open.request.outFields == ["speed"])
    }

    /// Each bad command is refused with its id and a message naming the problem; nothing is silently dropped.
    @Test(arguments: [
        (#"{"id":1,"command":"query-entities","trackIds":["A",null]}"#, "trackIds[1] must be a string or a number, not null"),
        (#"{"id":1,"command":"query-entities","trackIds":[{"a":1}]}"#, #"trackIds[0] must be a string or a number, not {"a":1}"#),
        (#"{"id":1,"command":"query-entities","trackIds":"A"}"#, "\"trackIds\" must be an array"),
        (#"{"id":1,"command":"query-entities","observations":-2}"#, "\"observations\" must be a count"),
        (#"{"id":1,"command":"query-entities","geometry":"1,2,3"}"#, "geometry"),
        (#"{"id":1,"command":"purge-all","force":true}"#, "unknown member 'force' for purge-all"),
        (#"{"id":1,"command":"launch"}"#, "unknown command 'launch'"),
        (#"{"id":1,"command":"set-filter"}"#, "missing \"filter\""),
        (#"{"id":1,"command":"cancel"}"#, "missing \"job\""),
        (#"{"id":1,"command":"cancel","job":[1]}"#, "\"job\" must be"),
        (#"{"id":1,"command":"query-observations","timeExtent":{"start":"2026-11-23","end":"2026-11-22"}}"#, "is before the start"),
        (#"{"id":1,"command":"query-observations","timeExtent":{"start":"yesterday"}}"#, "timeExtent.start: invalid time 'yesterday'"),
        (#"{"id":1,"command":"query-observations","timeExtent":{"begin":0}}"#, "unknown member 'begin'"),
        (#"{"id":1,"command":"query-observations","timeExtent":{"start":1e300}}"#, "timeExtent.start"),
        (#"{"id":1,"command":"query-observations","limit":0}"#, "\"limit\" must be a whole number from 1"),
        (#"{"id":1,"command":"query-observations","where":"speed >"}"#, "where:"),
        (#"{"id":1,"command":"query-observations","returnCountOnly":"yes"}"#, "\"returnCountOnly\" must be true or false"),
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

    /// Lines that are not commands at all are refused with a null id.
    @Test(arguments: ["not json", "[1]", #"{"command":"status"}"#, #"{"id":{"a":1},"command":"status"}"#])
    func nonCommandsAreRefused(line: String) {
        #expect(throws: ControlCommandError.self) { try parse(line) }
    }
}
