import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("Filter negotiation", .bounded)
struct FilterNegotiationTests {
    private let schema = Schema(fields: [Field(name: "vehiclename", type: .string), Field(name: "speed", type: .double)],
                                trackIDField: "vehiclename")
    private let clock = ManualClock()

    private func negotiation(_ filter: StreamFilter = StreamFilter(), timeout: Int64 = 10_000) -> FilterNegotiation {
        FilterNegotiation(filter: filter, replyTimeoutMilliseconds: timeout)
    }

    private func reply(_ text: String) throws -> JSONObject {
        try #require(JSONParser.parse(text).objectValue)
    }

    /// The id, message and deadline of a `send` action (nil for a settled request).
    private func sent(_ action: FilterNegotiation.RequestAction) -> (id: Int, message: String, deadline: Int64)? {
        if case .send(let id, let message, let deadline) = action { return (id, message, deadline) }
        return nil
    }

    private func settled(_ action: FilterNegotiation.RequestAction) -> FilterOutcome? {
        if case .settled(let outcome) = action { return outcome }
        return nil
    }

    /// Without a socket a request is kept for the next connection: applied at once, in effect, nothing sent.
    @Test func withoutSocketTheFilterIsKeptForTheNextConnection() throws {
        var filters = negotiation()
        let wanted = StreamFilter(whereClause: "speed > 10", outSpatialReference: 3857)
        let answer1 = filters.request(wanted, schema: schema, socketOpen: false, now: clock.now())
        let outcome = try #require(settled(answer1))
        #expect(outcome.result == .applied && outcome.requested == wanted && outcome.error == nil)
        #expect(filters.inEffect == wanted)
        #expect(filters.waitingIDs.isEmpty)
    }

    /// A where clause naming an unknown field is rejected locally, naming it; the filter in effect stays.
    @Test func invalidWhereIsRejectedLocally() throws {
        var filters = negotiation(StreamFilter(whereClause: "speed > 1"))
        let refused = filters.request(StreamFilter(whereClause: "colour = 'red'"), schema: schema, socketOpen: true, now: clock.now())
        let outcome = try #require(settled(refused))
        #expect(outcome.result == .rejected)
        #expect(outcome.error?.hasPrefix("invalid where clause:") == true)
        #expect(outcome.error?.contains("colour") == true)
        #expect(filters.inEffect.whereClause == "speed > 1")
        // Before the schema is known, the server is the judge.
        let answer2 = filters.request(StreamFilter(whereClause: "colour = 'red'"), schema: nil, socketOpen: true, now: 0)
        #expect(sent(answer2) != nil)
    }

    /// On an open socket, a change of outSR is refused (fixed for the socket's life); the same outSR is sent.
    @Test func outSpatialReferenceIsFixedOnAnOpenSocket() throws {
        var filters = negotiation(StreamFilter(outSpatialReference: 4326))
        let refused = filters.request(StreamFilter(outSpatialReference: 3857), schema: schema, socketOpen: true, now: 0)
        let outcome = try #require(settled(refused))
        #expect(outcome.result == .rejected && outcome.error == "outSR is fixed for the life of a socket; reconnect to change it")
        let same = sent(filters.request(StreamFilter(whereClause: "speed > 5", outSpatialReference: 4326), schema: schema,
                                        socketOpen: true, now: 0))
        #expect(same?.message == #"{"filter":{"where":"speed > 5"}}"#)
    }

    /// A sent request waits until its deadline (request time plus the timeout); the server's answer applies it.
    @Test func replyAppliesTheOldestRequest() throws {
        var filters = negotiation(timeout: 2_500)
        let first = StreamFilter(whereClause: "speed > 5")
        let second = StreamFilter(whereClause: "speed > 9")
        let answer3 = filters.request(first, schema: schema, socketOpen: true, now: clock.now())
        let a = try #require(sent(answer3))
        #expect(a.deadline == clock.now() + 2_500)
        #expect(a.message == first.filterMessage())
        clock.advance(by: 100)
        let answer4 = filters.request(second, schema: schema, socketOpen: true, now: clock.now())
        let b = try #require(sent(answer4))
        #expect(b.id != a.id && b.deadline == clock.now() + 2_500)
        #expect(filters.waitingIDs == [a.id, b.id])
        #expect(filters.inEffect == StreamFilter())

        guard case .settle(let id, let outcome) = filters.replyReceived(try reply(#"{"filter":{"where":"speed > 5"}}"#)) else {
            Issue.record("the reply settled nothing")
            return
        }
        #expect(id == a.id && outcome.result == .applied && outcome.requested == first && outcome.reply != nil)
        #expect(filters.inEffect == first)
        #expect(filters.waitingIDs == [b.id])
    }

    /// The server's error (an array, a string or an object's message) rejects the request, in its words; the filter stays.
    @Test func errorReplyRejectsInTheServersWords() throws {
        let cases = [
            (#"{"error":["Invalid where clause","field 'x'"]}"#, "Invalid where clause, field 'x'"),
            (#"{"error":"no such field"}"#, "no such field"),
            (#"{"error":{"code":400,"message":"bad geometry"}}"#, "bad geometry"),
        ]
        for (text, words) in cases {
            var filters = negotiation(StreamFilter(whereClause: "speed > 1"))
            let answer5 = filters.request(StreamFilter(whereClause: "speed > 2"), schema: schema, socketOpen: true, now: 0)
            let request = try #require(sent(answer5))
            guard case .settle(let id, let outcome) = filters.replyReceived(try reply(text)) else {
                Issue.record("\(text) settled nothing")
                continue
            }
            #expect(id == request.id && outcome.result == .rejected && outcome.error == words, "\(text)")
            #expect(filters.inEffect.whereClause == "speed > 1")
        }
        // An empty error array or a null error is no error.
        for text in [#"{"error":[]}"#, #"{"error":null}"#] {
            var filters = negotiation()
            _ = filters.request(StreamFilter(whereClause: "speed > 2"), schema: schema, socketOpen: true, now: 0)
            guard case .settle(_, let outcome) = filters.replyReceived(try reply(text)) else {
                Issue.record("\(text) settled nothing")
                continue
            }
            #expect(outcome.result == .applied, "\(text)")
        }
    }

    /// A request unanswered by its deadline times out, naming the wait; a late deadline after the answer changes nothing.
    @Test func deadlineTimesOutOnlyAnUnansweredRequest() throws {
        var filters = negotiation(timeout: 1_500)
        let answer6 = filters.request(StreamFilter(whereClause: "speed > 2"), schema: schema, socketOpen: true, now: 0)
        let a = try #require(sent(answer6))
        let answer7 = filters.request(StreamFilter(whereClause: "speed > 3"), schema: schema, socketOpen: true, now: 0)
        let b = try #require(sent(answer7))
        let answer8 = filters.deadlinePassed(id: a.id)
        let timedOut = try #require(answer8)
        #expect(timedOut.result == .timedOut && timedOut.error == "the server did not answer within 1.5 s")
        #expect(timedOut.requested.whereClause == "speed > 2")
        let answer9 = filters.deadlinePassed(id: a.id)
        #expect(answer9 == nil)
        // The next answer goes to the request still waiting.
        guard case .settle(let id, _) = filters.replyReceived(try reply(#"{"filter":{}}"#)) else {
            Issue.record("the reply settled nothing")
            return
        }
        #expect(id == b.id)
        let answer10 = filters.deadlinePassed(id: b.id)
        #expect(answer10 == nil)
        #expect(filters.inEffect.whereClause == "speed > 3")
    }

    /// A filter message nobody asked for is reported as the filter in effect.
    @Test func unrequestedReplyReportsTheFilterInEffect() throws {
        let current = StreamFilter(whereClause: "speed > 7")
        var filters = negotiation(current)
        guard case .unrequested(let outcome) = filters.replyReceived(try reply(#"{"filter":{"where":"speed > 7"}}"#)) else {
            Issue.record("an unrequested reply settled a request")
            return
        }
        #expect(outcome.result == .applied && outcome.requested == current && outcome.reply != nil)
    }

    /// The socket's end rejects every waiting request with the reason, oldest first; a failed send rejects its request.
    @Test func socketEndAndSendFailureReject() throws {
        var filters = negotiation()
        let answer11 = filters.request(StreamFilter(whereClause: "speed > 2"), schema: schema, socketOpen: true, now: 0)
        let a = try #require(sent(answer11))
        let answer12 = filters.request(StreamFilter(whereClause: "speed > 3"), schema: schema, socketOpen: true, now: 0)
        let b = try #require(sent(answer12))
        let answer13 = filters.request(StreamFilter(whereClause: "speed > 4"), schema: schema, socketOpen: true, now: 0)
        let c = try #require(sent(answer13))
        let failed = filters.sendFailed(id: c.id, error: "socket closed")
        #expect(failed.result == .rejected && failed.error == "could not send: socket closed" && failed.requested.whereClause == "speed > 4")
        let closed = filters.socketClosed(reason: "disconnected")
        #expect(closed.map(\.id) == [a.id, b.id])
        #expect(closed.allSatisfy { $0.outcome.result == .rejected && $0.outcome.error == "disconnected" })
        #expect(filters.waitingIDs.isEmpty)
        #expect(filters.inEffect == StreamFilter())
        let answer14 = filters.deadlinePassed(id: a.id)
        #expect(answer14 == nil)
    }
}

@Suite("Archive priming", .bounded)
struct ArchivePrimingTests {
    private func description(archive: String?) throws -> ServiceDescription {
        let member = archive.map { #","keepLatestArchive":\#($0)"# } ?? ""
        return try ServiceDescription(json: Array(#"{"streamUrls":[{"transport":"ws","urls":["ws://h/s"]}]\#(member)}"#.utf8))
    }

    /// An episode primes until one query succeeds; later attempts of the same episode skip; a new episode primes again.
    @Test func primesOncePerEpisode() throws {
        var priming = ArchivePriming()
        let service = try description(archive: #"{"featuresUrl":"http://h/a/FeatureServer/0"}"#)
        let archive = KeepLatestArchive(featuresURL: "http://h/a/FeatureServer/0")
        #expect(priming.step(episode: 1, description: service) == .prime(archive))
        let answer15 = priming.finished(episode: 1, .failed("HTTP 503", delivered: 0))
        #expect(answer15 == "priming from keepLatestArchive failed; streaming without it: HTTP 503")
        #expect(priming.step(episode: 1, description: service) == .prime(archive))
        let answer16 = priming.finished(episode: 1, .primed(count: 4, pages: 2))
        #expect(answer16 == nil)
        #expect(priming.primedObservationCount == 4)
        #expect(priming.step(episode: 1, description: service) == .skip)
        #expect(priming.step(episode: 2, description: service) == .prime(archive))
        let answer17 = priming.finished(episode: 2, .cancelled)
        #expect(answer17 == nil)
        #expect(priming.step(episode: 2, description: service) == .prime(archive))
    }

    /// Observations delivered before a failure count, and the report says how many.
    @Test func failureAfterSomePagesCountsThem() {
        var priming = ArchivePriming()
        let answer18 = priming.finished(episode: 1, .failed("timed out", delivered: 3))
        #expect(answer18
                == "priming from keepLatestArchive failed after 3 observations; streaming without it: timed out")
        #expect(priming.primedObservationCount == 3)
        #expect(priming.primedEpisode == nil)
    }

    /// No archive: nothing to do. An unusable member: reported in the description error's words.
    @Test func absentOrUnusableArchive() throws {
        let priming = ArchivePriming()
        #expect(priming.step(episode: 1, description: try description(archive: nil)) == .skip)
        #expect(priming.step(episode: 1, description: try description(archive: "null")) == .skip)
        let step = priming.step(episode: 1, description: try description(archive: #"{"maximumFeatureAge":0}"#))
        guard case .report(let message) = step else {
            Issue.record("an archive without featuresUrl was not reported: \(step)")
            return
        }
        #expect(message.contains("featuresUrl"))
    }
}
