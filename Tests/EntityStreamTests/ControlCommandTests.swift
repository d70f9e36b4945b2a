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

    /// Each bad command is refused with its id and the problem by case; nothing is silently dropped.
    @Test(arguments: [
        (#"{"id":1,"command":"query-entities","trackIds":["A",null]}"#, ControlCommandError.Problem.notATrackID(member: "trackIds", index: 1, .null)),
        (#"{"id":1,"command":"query-entities","trackIds":[{"a":1}]}"#, .notATrackID(member: "trackIds", index: 0, .object(JSONObject([("a", .int(1))])))),
        (#"{"id":1,"command":"query-entities","trackIds":"A"}"#, .notAnArray(member: "trackIds")),
        (#"{"id":1,"command":"query-entities","observations":-2}"#, .observationsNotACount),
        (#"{"id":1,"command":"query-entities","geometry":"1,2,3"}"#, .envelope(member: "geometry", .envelopePartCount("1,2,3"))),
        (#"{"id":1,"command":"purge-all","force":true}"#, .unknownMember("force", command: "purge-all", allowed: [])),
        (#"{"id":1,"command":"launch"}"#, .unknownCommand("launch", known: ControlCommandRegistry.standard.names)),
        (#"{"id":1,"command":"set-filter"}"#, .missingFilter),
        (#"{"id":1,"command":"set-filter","filter":{"colour":"red"}}"#, .filter(.unknownMember("colour"))),
        (#"{"id":1,"command":"cancel"}"#, .missingJob),
        (#"{"id":1,"command":"cancel","job":[1]}"#, .invalidJob),
        // 2026-11-23 and 2026-11-22 at midnight UTC, epoch ms.
        (#"{"id":1,"command":"query-observations","timeExtent":{"start":"2026-11-23","end":"2026-11-22"}}"#,
         .timeExtent(member: "timeExtent", .endBeforeStart(start: 1_795_392_000_000, end: 1_795_305_600_000))),
        (#"{"id":1,"command":"query-observations","timeExtent":{"start":"yesterday"}}"#, .timeBound(member: "timeExtent", bound: "start", .malformed("yesterday"))),
        (#"{"id":1,"command":"query-observations","timeExtent":{"begin":0}}"#, .timeExtentMember(member: "timeExtent", unknown: "begin")),
        (#"{"id":1,"command":"query-observations","timeExtent":{"start":1e300}}"#, .timeBound(member: "timeExtent", bound: "start", .epochNotWhole("1e+300"))),
        (#"{"id":1,"command":"query-observations","timeExtent":true}"#, .timeExtentShape(member: "timeExtent")),
        (#"{"id":1,"command":"query-observations","limit":0}"#, .notAWholeNumber(member: "limit", range: 1...QueryObservationsCommand.maximumLimit)),
        (#"{"id":1,"command":"query-observations","returnCountOnly":"yes"}"#, .notABool(member: "returnCountOnly")),
        (#"{"id":1,"command":"identify","raster":"dem","x":1,"y":2,"sr":4326,"inSR":4326}"#, .conflicting("inSR", "sr")),
    ] as [(String, ControlCommandError.Problem)])
    func badCommandsAreNamed(line: String, expected: ControlCommandError.Problem) {
        do {
            _ = try parse(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.id == .int(1))
            #expect(error.problem == expected)
        }
    }

    /// A where clause that does not parse is its own case; the response says what is wrong in words.
    @Test func badWhereClause() {
        let error = #expect(throws: ControlCommandError.self) { try parse(#"{"id":1,"command":"query-observations","where":"speed >"}"#) }
        guard case .whereClause? = error?.problem else { Issue.record("\(String(describing: error))"); return }
        #expect(error?.message.hasPrefix("where: ") == true)
        let unknown = #expect(throws: ControlCommandError.self) { try parse(#"{"id":"x","command":"purge-all","force":true}"#) }
        #expect(unknown?.message == "unknown member 'force' for purge-all")
        #expect(unknown?.id == .string("x") && unknown?.command == "purge-all")
        let notAReference = #expect(throws: ControlCommandError.self) { try parse(#"{"id":1,"command":"hotspots","outSR":true}"#) }
        guard case .spatialReference(member: "outSR", _)? = notAReference?.problem else { Issue.record("\(String(describing: notAReference))"); return }
        #expect(notAReference?.message == #""outSR": 'true' is not a spatial reference: expected a WKID, {"wkid":N} or {"wkt":"…"}"#)
    }

    /// Lines that are not commands at all are refused with a null id.
    @Test func nonCommandsAreRefused() {
        let notJSON = #expect(throws: ControlCommandError.self) { try parse("not json") }
        guard case .notJSON? = notJSON?.problem else { Issue.record("\(String(describing: notJSON))"); return }
        #expect(notJSON?.id == .null)
        #expect(throws: ControlCommandError(id: .null, command: nil, problem: .notAnObject)) { try parse("[1]") }
        #expect(throws: ControlCommandError(id: .null, command: "status", problem: .missingID)) { try parse(#"{"command":"status"}"#) }
        #expect(throws: ControlCommandError(id: .null, command: "status", problem: .invalidID)) { try parse(#"{"id":{"a":1},"command":"status"}"#) }
        #expect(throws: ControlCommandError(id: .int(2), command: nil, problem: .missingCommand(known: ControlCommandRegistry.standard.names))) {
            try parse(#"{"id":2}"#)
        }
    }
}
