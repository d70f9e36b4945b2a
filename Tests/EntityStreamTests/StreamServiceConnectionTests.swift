import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import EntityStreamLocking
import Testing
import EntityStreamTransport
import EntityStreamModel

/// A description answer for `service` with an optional socket token.
private func describe(_ socketBase: String, token: String? = nil, trackIDField: String? = "vehiclename") -> HTTPServerResponse {
    HTTPServerResponse(text: ScriptedStreamService.descriptionJSON(socketBase: socketBase, token: token, trackIDField: trackIDField))
}

/// Options with a manual clock and a fast keepalive.
private func options(clock: ManualClock = ManualClock(), token: String? = nil) -> StreamConnectionOptions {
    var options = StreamConnectionOptions()
    options.clock = clock
    options.token = token
    return options
}

/// Accepts, sends `features`, then stays open until the client leaves.
private func sending(_ features: [String]) -> WebSocketUpgradeDecision {
    .accept { socket in
        for feature in features { try? await socket.send(feature) }
        _ = await socket.closed()
    }
}

@Suite("Stream service connection", .bounded(.io))
struct StreamServiceConnectionTests {
    /// The description is fetched with the user's token, its trackIdField keys the
    /// schema, and the socket subscribes with the description's token.
    @Test func fetchesDescriptionAndPassesTokens() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase, token: "socket-token") },
            socket: { _, _ in sending([ScriptedStreamService.feature("TRUCK 1", speed: 10), ScriptedStreamService.feature("TRUCK 2", speed: 0)]) })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(token: "user-token"), sink: sink)
        #expect(await connection.connect() == .connected)
        let snapshot = await sink.wait { $0.observations.count == 2 }
        #expect(service.descriptionRequests.first?.queryValue("f") == "json")
        #expect(service.descriptionRequests.first?.queryValue("token") == "user-token")
        #expect(service.upgrades.first?.queryValue("token") == "socket-token")
        let schema = try #require(snapshot.schemas.last)
        #expect(schema.trackIDField?.name == "vehiclename")
        #expect(snapshot.observations.map { $0.attribute(0) } == [.string("TRUCK 1"), .string("TRUCK 2")])
        let connected = try #require(snapshot.statuses.first { $0.status == .connected })
        #expect(connected.url?.contains("token=***") == true)
        #expect(connected.url?.contains("socket-token") == false)
        await connection.disconnect()
        #expect(await connection.status == .disconnected)
        await service.shutdown()
    }

    /// Without a trackIdField the user must name one; otherwise connecting fails with a clear error.
    @Test func missingTrackIDFieldNeedsAnOption() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase, trackIDField: nil) },
            socket: { _, _ in sending([]) })
        let sink = RecordingSink()
        let failing = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        #expect(await failing.connect() == .failed)
        #expect(await failing.lastError?.contains("--track-field") == true)
        #expect(service.upgrades.isEmpty)

        var named = options()
        named.trackIDField = "VehicleName"
        let working = StreamServiceConnection(serviceURL: service.serviceURL, options: named, sink: RecordingSink())
        #expect(await working.connect() == .connected)
        #expect(await working.schema?.trackIDField?.name == "vehiclename")
        await working.disconnect()
        await service.shutdown()
    }

    /// An ArcGIS error object or a non-JSON answer fails with the server's words.
    @Test func descriptionErrorsAreReadable() async throws {
        let service = try await ScriptedStreamService.start(
            description: { call in
                call.index == 0
                    ? HTTPServerResponse(text: #"{"error":{"code":498,"message":"Invalid token.","details":[]}}"#)
                    : HTTPServerResponse(contentType: "text/html", text: "<html>login</html>")
            },
            socket: { _, _ in sending([]) })
        let first = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: RecordingSink())
        #expect(await first.connect() == .failed)
        #expect(await first.lastError == "the service answered with ArcGIS error 498: Invalid token.")
        let second = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: RecordingSink())
        #expect(await second.connect() == .failed)
        #expect(await second.lastError?.contains("not JSON") == true)
        #expect(await second.lastError?.contains("<html>login</html>") == true)
        await service.shutdown()
    }

    /// The filter given at connect travels as subscribe parameters.
    @Test func filterAtConnectIsInTheSubscribeURL() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) }, socket: { _, _ in sending([]) })
        var connectOptions = options()
        connectOptions.filter = StreamFilter(whereClause: "speed > 0", geometry: Envelope(xmin: -112.11, ymin: 40.53, xmax: -111.81, ymax: 40.72, wkid: 4326),
                                             outFields: ["vehiclename", "speed"], outSpatialReference: 3857)
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: connectOptions, sink: RecordingSink())
        #expect(await connection.connect() == .connected)
        let upgrade = try #require(service.upgrades.first)
        #expect(upgrade.queryValue("where") == "speed > 0")
        #expect(upgrade.queryValue("outFields") == "vehiclename,speed")
        #expect(upgrade.queryValue("outSR") == "3857")
        let envelope = try StreamFilter.parseEnvelope(try #require(upgrade.queryValue("geometry")))
        #expect(envelope == Envelope(xmin: -112.11, ymin: 40.53, xmax: -111.81, ymax: 40.72, wkid: 4326))
        await connection.disconnect()
        await service.shutdown()
    }

    /// A where clause naming an unknown field fails before the socket opens, with its position.
    @Test func invalidWhereFailsBeforeSubscribing() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) }, socket: { _, _ in sending([]) })
        var connectOptions = options()
        connectOptions.filter.whereClause = "sped > 0"
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: connectOptions, sink: RecordingSink())
        #expect(await connection.connect() == .failed)
        #expect(await connection.lastError?.contains("unknown field 'sped'") == true)
        #expect(await connection.lastError?.contains("position 1") == true)
        #expect(service.upgrades.isEmpty)
        await service.shutdown()
    }

    /// Filter changes on an open socket resolve as applied, rejected, or timed out after 10 s.
    @Test func filterChangesAreAppliedRejectedOrTimedOut() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { _, _ in
                .accept { socket in
                    var replies = 0
                    do {
                        for try await batch in socket.inbound {
                            for index in batch.indices {
                                let text = batch.text(at: index)
                                replies += 1
                                if replies == 1 {
                                    try await socket.send(text)
                                } else if replies == 2 {
                                    try await socket.send(String(text.dropLast()) + #","error":["Invalid where clause"]}"#)
                                }
                            }
                        }
                    } catch {}
                }
            })
        let clock = ManualClock()
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(clock: clock), sink: sink)
        #expect(await connection.connect() == .connected)

        let applied = await connection.setFilter(StreamFilter(whereClause: "speed > 0"))
        #expect(applied.result == .applied)
        #expect(await connection.filter.whereClause == "speed > 0")

        let rejected = await connection.setFilter(StreamFilter(whereClause: "agency = 4"))
        #expect(rejected.result == .rejected)
        #expect(rejected.error == "Invalid where clause")
        #expect(await connection.filter.whereClause == "speed > 0")

        let pending = Task { await connection.setFilter(StreamFilter(whereClause: "agency = 3")) }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: 9_999)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 1)
        let timedOut = await pending.value
        #expect(timedOut.result == .timedOut)

        let local = await connection.setFilter(StreamFilter(whereClause: "nope = 1"))
        #expect(local.result == .rejected)
        #expect(local.error?.contains("unknown field 'nope'") == true)
        let outcomes = await sink.wait { $0.filterOutcomes.count == 4 }.filterOutcomes.map(\.result)
        #expect(outcomes == [.applied, .rejected, .timedOut, .rejected])
        await connection.disconnect()
        await service.shutdown()
    }

    /// A dropped socket is retried twice at once, then every 10 s (no jitter asked); the status sequence is exact.
    @Test func reconnectsWithPolicyTiming() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { index, _ in
                switch index {
                case 0: return .accept { socket in
                        try? await socket.send(ScriptedStreamService.feature("TRUCK 1", speed: 3))
                        await socket.flush()
                        socket.abort()
                    }
                case 1, 2, 3: return .reject(status: 503, body: "busy")
                default: return sending([ScriptedStreamService.feature("TRUCK 1", speed: 4)])
                }
            })
        let clock = ManualClock()
        let sink = RecordingSink()
        var exact = options(clock: clock)
        exact.reconnectPolicy = ReconnectPolicy(jitter: 0)
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: exact, sink: sink)
        #expect(await connection.connect() == .connected)
        await clock.sleepers(atLeast: 1)
        #expect(service.upgrades.count == 3, "attempts 1 and 2 went out at once")
        #expect(clock.nextDeadline == clock.now() + 10_000)
        clock.advance(by: 10_000)
        await clock.sleepers(atLeast: 1)
        #expect(service.upgrades.count == 4)
        clock.advance(by: 10_000)
        let snapshot = await sink.wait { $0.statuses.count == 7 }
        #expect(service.upgrades.count == 5)
        let sequence = snapshot.statuses.map { "\($0.status.rawValue) \($0.attempt)" }
        #expect(sequence == ["connecting 0", "connected 0", "connecting 1", "connecting 2", "connecting 3", "connecting 4", "connected 4"])
        #expect(snapshot.statuses[2].error?.contains("connection lost") == true)
        #expect(snapshot.statuses[3].error?.contains("503") == true)
        let observations = await sink.wait { $0.observations.count == 2 }.observations
        #expect(observations.map { $0.attribute(1) } == [.double(3), .double(4)])
        await connection.disconnect()
        await service.shutdown()
    }

    /// Each reconnect tries the next of the description's socket URLs: a dead first URL is skipped for the live second.
    @Test func reconnectRotatesThroughStreamURLs() async throws {
        let dead = try await ScriptedStreamService.start(description: { _ in describe("") }, socket: { _, _ in .reject(status: 503, body: "down") })
        let deadBase = dead.socketBase
        let service = try await ScriptedStreamService.start(
            description: { HTTPServerResponse(text: ScriptedStreamService.descriptionJSON(socketBases: [deadBase, $0.socketBase])) },
            socket: { _, _ in sending([ScriptedStreamService.feature("TRUCK 1", speed: 3)]) })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.statuses.last?.status == .connected }
        #expect(snapshot.statuses.map { "\($0.status.rawValue) \($0.attempt)" } == ["connecting 0", "connecting 1", "connected 1"])
        #expect(snapshot.statuses[1].error?.contains("503") == true)
        #expect(dead.upgrades.count == 1)
        #expect(service.upgrades.count == 1)
        #expect(await sink.wait { $0.observations.count == 1 }.observations.count == 1)
        await connection.disconnect()
        await service.shutdown()
        await dead.shutdown()
    }

    /// Close code 4400 is final: no retry, status failed with the code and reason.
    @Test func closeCode4400FailsWithoutRetry() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { _, _ in .accept { socket in await socket.close(code: 4400, reason: "Invalid filter") } })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        #expect(await connection.connect() == .connected)
        let snapshot = await sink.wait { $0.statuses.last?.status == .failed }
        #expect(snapshot.statuses.map(\.status) == [.connecting, .connected, .failed])
        #expect(snapshot.statuses.last?.error == "server closed the connection (4400: Invalid filter)")
        #expect(service.upgrades.count == 1)
        await service.shutdown()
    }

    /// The description, and so the token, is fetched again before every reconnect.
    @Test func tokenIsRefreshedOnReconnect() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase, token: "t\($0.index)") },
            socket: { index, _ in
                index == 0 ? .accept { socket in socket.abort() } : sending([ScriptedStreamService.feature("A", speed: 1)])
            })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        #expect(await connection.connect() == .connected)
        _ = await sink.wait { $0.observations.count == 1 }
        #expect(service.upgrades.map { $0.queryValue("token") } == ["t0", "t1"])
        #expect(service.descriptionRequests.count == 2)
        await connection.disconnect()
        await service.shutdown()
    }

    /// After 4401 the client retries once if a fresh description brings a new token, and fails if not.
    @Test func unauthorizedRetriesOnlyWithNewToken() async throws {
        let rotating = try await ScriptedStreamService.start(
            description: { describe($0.socketBase, token: "t\($0.index)") },
            socket: { index, _ in
                index == 0 ? .accept { socket in await socket.close(code: 4401, reason: "token expired") }
                           : sending([ScriptedStreamService.feature("A", speed: 1)])
            })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: rotating.serviceURL, options: options(), sink: sink)
        _ = await connection.connect()
        _ = await sink.wait { $0.observations.count == 1 }
        #expect(rotating.upgrades.map { $0.queryValue("token") } == ["t0", "t1"])
        await connection.disconnect()
        await rotating.shutdown()

        let fixed = try await ScriptedStreamService.start(
            description: { describe($0.socketBase, token: "same") },
            socket: { _, _ in .accept { socket in await socket.close(code: 4401, reason: "token expired") } })
        let fixedSink = RecordingSink()
        let failing = StreamServiceConnection(serviceURL: fixed.serviceURL, options: options(), sink: fixedSink)
        _ = await failing.connect()
        let snapshot = await fixedSink.wait { $0.statuses.last?.status == .failed }
        #expect(fixed.upgrades.count == 1)
        #expect(fixed.descriptionRequests.count == 2)
        #expect(snapshot.statuses.last?.error?.contains("no new token") == true)
        await fixed.shutdown()
    }

    /// Malformed frames between good ones: every good one arrives, every bad one is counted and reported with its byte offset.
    @Test func malformedFramesAreCountedAndSkipped() async throws {
        let frames = [ScriptedStreamService.feature("A", speed: 1), "{\"geometry\":", ScriptedStreamService.feature("B", speed: 2),
                      "42", ScriptedStreamService.feature("C", speed: 3), "[1,2", ScriptedStreamService.feature("D", speed: 4)]
        let service = try await ScriptedStreamService.start(description: { describe($0.socketBase) }, socket: { _, _ in sending(frames) })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.observations.count == 4 && $0.errors.count == 3 }
        #expect(snapshot.observations.map { $0.attribute(0) } == [.string("A"), .string("B"), .string("C"), .string("D")])
        #expect(snapshot.errors.map(\.count) == [1, 2, 3])
        #expect(snapshot.errors.allSatisfy { $0.source == .message && $0.message.contains("at byte") })
        #expect(await connection.undecodableMessageCount == 3)
        await connection.disconnect()
        await service.shutdown()
    }

    /// disconnect() while the description is still loading ends connecting at once.
    @Test func disconnectWhileConnecting() async throws {
        let gate = AsyncStreamBox<Void>()
        let service = try await ScriptedStreamService.start(
            description: { call in
                _ = await gate.next()
                return describe(call.socketBase)
            },
            socket: { _, _ in sending([]) })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        let connecting = Task { await connection.connect() }
        _ = await sink.wait { $0.statuses.first?.status == .connecting }
        await connection.disconnect()
        #expect(await connecting.value == .disconnected)
        #expect(await connection.status == .disconnected)
        #expect(service.upgrades.isEmpty)
        await connection.disconnect()
        gate.yield(())
        await service.shutdown()
    }

    /// disconnect() during a reconnect wait stops reconnecting for good.
    @Test func disconnectDuringReconnectWait() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { index, _ in index == 0 ? .accept { socket in socket.abort() } : .reject(status: 503, body: "busy") })
        let clock = ManualClock()
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(clock: clock), sink: sink)
        #expect(await connection.connect() == .connected)
        await clock.sleepers(atLeast: 1)
        await connection.disconnect()
        #expect(clock.sleeperCount == 0)
        clock.advance(by: 60_000)
        let snapshot = sink.snapshot
        #expect(snapshot.statuses.last?.status == .disconnected)
        #expect(service.upgrades.count == 3, "no attempt after disconnect")
        await service.shutdown()
    }

    /// connect() while disconnect() is suspended in its teardown: the status already reads
    /// disconnected, and the connect waits for the teardown, then opens a new socket (it used to
    /// return the old `connected`, and the disconnect then left the connection disconnected).
    @Test func connectDuringDisconnectWaitsForTheTeardown() async throws {
        let service = try await ScriptedStreamService.start(description: { describe($0.socketBase) }, socket: { _, _ in sending([]) })
        let sink = GatedSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        #expect(await connection.connect() == .connected)
        sink.holdNextDisconnectedStatus()
        let disconnecting = Task { await connection.disconnect() }
        await sink.heldDisconnectedStatus()          // the disconnect is suspended mid-teardown
        #expect(await connection.status == .disconnected)
        let connecting = Task { await connection.connect() }
        sink.release()
        await disconnecting.value
        #expect(await connecting.value == .connected)
        #expect(await connection.status == .connected)
        #expect(service.upgrades.count == 2)
        await connection.disconnect()
        await service.shutdown()
    }

    /// Filter changes made at once from many tasks leave in the order they were made, so each
    /// reply settles its own request (with one task per send they could overtake each other).
    @Test func concurrentFilterChangesKeepTheirOrder() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { _, _ in
                .accept { socket in
                    do {
                        for try await batch in socket.inbound {
                            for index in batch.indices { try await socket.send(batch.text(at: index)) }   // echo = applied
                        }
                    } catch {}
                }
            })
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: RecordingSink())
        #expect(await connection.connect() == .connected)
        let outcomes = await withTaskGroup(of: FilterOutcome.self) { group in
            for speed in 0..<30 {
                group.addTask { await connection.setFilter(StreamFilter(whereClause: "speed > \(speed)")) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 30)
        for outcome in outcomes {
            #expect(outcome.result == .applied)
            let echoed = outcome.reply?["filter"]?["where"]?.stringValue
            #expect(echoed == outcome.requested.whereClause, "a reply settled another request")
        }
        await connection.disconnect()
        await service.shutdown()
    }

    /// Close code 1001 (a server going away to restart) is followed by a reconnect.
    @Test func goingAwayReconnects() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { index, _ in
                index == 0 ? .accept { socket in await socket.close(code: 1001, reason: "restarting") }
                           : sending([ScriptedStreamService.feature("A", speed: 1)])
            })
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(), sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.observations.count == 1 }
        #expect(snapshot.statuses.map { "\($0.status.rawValue) \($0.attempt)" } == ["connecting 0", "connected 0", "connecting 1", "connected 1"])
        #expect(snapshot.statuses[2].error == "server closed the connection (1001: restarting)")
        await connection.disconnect()
        await service.shutdown()
    }

    /// A first connection that cannot reach the service is retried by the policy (it used to
    /// fail at once whatever --reconnect-attempts said).
    @Test func unreachableServiceIsRetriedByThePolicy() async throws {
        let gone = try await ScriptedStreamService.start(description: { describe($0.socketBase) }, socket: { _, _ in sending([]) })
        let url = gone.serviceURL
        await gone.shutdown()
        var retrying = options()
        retrying.reconnectPolicy = ReconnectPolicy(maximumAttempts: 2, immediateAttempts: 2)
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: url, options: retrying, sink: sink)
        #expect(await connection.connect() == .failed)
        let statuses = await sink.wait { $0.statuses.last?.status == .failed }.statuses
        #expect(statuses.map { "\($0.status.rawValue) \($0.attempt)" } == ["connecting 0", "connecting 1", "connecting 2", "failed 2"])
        #expect(statuses.last?.error?.contains("could not be fetched") == true)
    }

    /// A server that never answers the close frame (a relay drops what the client sends once the
    /// stream flows) does not hold disconnect() for libwebsockets' 5 s: after the close timeout on
    /// the clock the connection is dropped, and the `disconnected` status says what was cut.
    @Test func disconnectIsBoundedWhenTheServerIgnoresTheClose() async throws {
        let relayPort = LockedState(0)
        let service = try await ScriptedStreamService.start(
            description: { _ in describe("ws://127.0.0.1:\(relayPort.withLock { $0 })/arcgis/ws/services/Test/StreamServer") },
            socket: { _, _ in sending([ScriptedStreamService.feature("A", speed: 1)]) })
        let relay = try MutingRelay(targetPort: service.server.port)
        relayPort.withLock { $0 = relay.port }
        let clock = ManualClock()
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: options(clock: clock), sink: sink)
        #expect(await connection.connect() == .connected)
        _ = await sink.wait { $0.observations.count == 1 }
        relay.mute()
        let disconnecting = Task { await connection.disconnect() }
        await clock.sleepers(atLeast: 1)
        #expect(clock.nextDeadline == clock.now() + 1_000)
        clock.advance(by: 1_000)
        await disconnecting.value
        let last = await sink.wait { $0.statuses.last?.status == .disconnected }.statuses.last
        #expect(last?.error == "the server did not answer the close frame within 1.0 s; the connection was dropped")
        #expect(await connection.status == .disconnected)
        relay.stop()
        await service.shutdown()
    }

    /// A server that always accepts, sends one message and closes: every short connection is a
    /// failed attempt, so the client reconnects twice at once, then waits the interval ± 20 % on
    /// the clock, and fails once the attempts are used (it used to reset the count on each message
    /// and reconnect at once for ever: 3,380 description requests and 3,379 upgrades in 5 s).
    @Test func serverClosingAfterOneMessageBacksOffThenFails() async throws {
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { index, _ in
                .accept { socket in
                    try? await socket.send(ScriptedStreamService.feature("A", speed: Double(index)))
                    await socket.flush()
                    await socket.close(code: 1000, reason: "one is enough")
                }
            })
        let clock = ManualClock()
        var policy = options(clock: clock)
        policy.reconnectPolicy = ReconnectPolicy(maximumAttempts: 4, immediateAttempts: 2, intervalMilliseconds: 10_000)
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: policy, sink: sink)
        #expect(await connection.connect() == .connected)
        await clock.sleepers(atLeast: 1)
        #expect(service.upgrades.count == 3, "attempts 1 and 2 went out at once, then the client waits")
        var wait = try #require(clock.nextDeadline) - clock.now()
        #expect(wait >= 8_000 && wait <= 12_000, "waited \(wait) ms")
        clock.advance(by: wait)
        await clock.sleepers(atLeast: 1)
        #expect(service.upgrades.count == 4)
        wait = try #require(clock.nextDeadline) - clock.now()
        #expect(wait >= 8_000 && wait <= 12_000, "waited \(wait) ms")
        clock.advance(by: wait)
        let snapshot = await sink.wait { $0.statuses.last?.status == .failed }
        #expect(service.upgrades.count == 5)
        #expect(service.descriptionRequests.count == 5)
        #expect(snapshot.statuses.filter { $0.status == .connected }.map(\.attempt) == [0, 1, 2, 3, 4])
        #expect(snapshot.statuses.last?.error == "server closed the connection (1000: one is enough)")
        #expect(await connection.status == .failed)
        await service.shutdown()
    }

    /// A server that always sends a message over the client's size limit is retried as the policy
    /// says and then given up (with --reconnect-attempts 2 it used to be retried for ever).
    @Test func oversizedMessagesRespectTheAttempts() async throws {
        let oversized = ScriptedStreamService.feature(String(repeating: "X", count: 4_000), speed: 1)
        let service = try await ScriptedStreamService.start(
            description: { describe($0.socketBase) },
            socket: { _, _ in sending([ScriptedStreamService.feature("A", speed: 1), oversized]) })
        var small = options()
        small.webSocket.maximumMessageSize = 1_024
        small.reconnectPolicy = ReconnectPolicy(maximumAttempts: 2, immediateAttempts: 2)
        let sink = RecordingSink()
        let connection = StreamServiceConnection(serviceURL: service.serviceURL, options: small, sink: sink)
        _ = await connection.connect()
        let snapshot = await sink.wait { $0.statuses.last?.status == .failed }
        #expect(service.upgrades.count == 3)
        #expect(snapshot.statuses.map { "\($0.status.rawValue) \($0.attempt)" }
                == ["connecting 0", "connected 0", "connecting 1", "connected 1", "connecting 2", "connected 2", "failed 2"])
        #expect(snapshot.statuses.last?.error?.contains("1024") == true, "\(snapshot.statuses.last?.error ?? "")")
        #expect(snapshot.observations.count == 3, "the message before the oversized one arrived each time")
        await service.shutdown()
    }
}

/// A sink that can hold the next `disconnected` status event until released,
/// to catch a disconnect() in the middle of its teardown.
private final class GatedSink: StreamConnectionSink {
    private struct State {
        var holding = false
        var held = false
        var heldWaiters: [CheckedContinuation<Void, Never>] = []
        var gate: CheckedContinuation<Void, Never>?
        var released = false
    }

    private let state = LockedState(State())

    func holdNextDisconnectedStatus() { state.withLock { $0.holding = true } }

    /// Returns once a disconnected status is being held.
    func heldDisconnectedStatus() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.held { return true }
                state.heldWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func release() {
        let gate = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.gate = nil }
            return state.gate
        }
        gate?.resume()
    }

    func publish(_ event: StreamEvent) async {
        guard case .status(let change) = event.payload, change.status == .disconnected else { return }
        let hold = state.withLock { state -> Bool in
            guard state.holding else { return false }
            state.holding = false
            return true
        }
        guard hold else { return }
        await withCheckedContinuation { (gate: CheckedContinuation<Void, Never>) in
            let (waiters, open) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
                state.held = true
                defer { state.heldWaiters = [] }
                if state.released { return (state.heldWaiters, true) }
                state.gate = gate
                return (state.heldWaiters, false)
            }
            for waiter in waiters { waiter.resume() }
            if open { gate.resume() }
        }
    }

    func schemaChanged(_ schema: Schema) async {}
    func receive(_ messages: [StreamMessage]) async {}
}
