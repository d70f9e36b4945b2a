import EntityStreamTestSupport
import Testing
@testable import EntityStreamTransport

/// libwebsockets 4.1 (Debian 12's) takes fresh OpenSSL ex-data indexes each
/// time a TLS-capable context is created; a client handshake that straddles
/// such a creation lost its certificate check and failed. Connections must
/// not fail because some other part of the process started a loop or server.
@Suite("TLS handshakes while other contexts start", .bounded(.io))
struct TLSContextRaceTests {
    @Test func handshakesSurviveOtherContextsStarting() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let server = try await startEchoServer { configuration in
            configuration.tls = certificate.tlsFiles
        }
        var http = HTTPClientConfiguration()
        http.allowSelfSignedCertificates = true
        let client = HTTPClient(configuration: http)
        var failures: [String] = []
        for _ in 0..<25 {
            let round = await withTaskGroup(of: String?.self) { group -> [String] in
                for _ in 0..<2 {
                    group.addTask {
                        var configuration = WebSocketConfiguration()
                        configuration.allowSelfSignedCertificates = true
                        do {
                            let connection = try await WebSocketClient.connect(to: "\(server.webSocketBase)/echo", configuration: configuration)
                            await connection.close()
                            return nil
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                for _ in 0..<3 {
                    group.addTask {
                        do {
                            let response = try await client.get("\(server.httpBase)/nothing")
                            return response.status == 404 ? nil : "status \(response.status)"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                group.addTask {
                    // Another client context starting and stopping in the same process.
                    let loop = TransportEventLoop(name: "es-tls-race")
                    _ = try? await loop.running()
                    await loop.shutdown()
                    return nil
                }
                var failed: [String] = []
                for await outcome in group { if let outcome { failed.append(outcome) } }
                return failed
            }
            failures += round
        }
        #expect(failures.isEmpty, "\(failures.count) of 125 TLS connections failed: \(failures.first ?? "")")
        await server.shutdown()
    }

    /// The decision itself: only a TLS connect that failed before any
    /// certificate was judged, with a TLS-capable context created meanwhile
    /// or being created at the failure.
    @Test func onlyVerdictlessFailuresAcrossACreationAreRetried() {
        typealias Epoch = TLSContextEpoch.Snapshot
        let quiet = Epoch(begun: 4, ended: 4)
        let creating = Epoch(begun: 5, ended: 4)
        let created = Epoch(begun: 5, ended: 5)
        var record = TLSHandshakeRecord()
        #expect(!record.failureMayBeContextRace(usesTLS: true, epochNow: created), "never connected")
        record.connecting(epoch: quiet)
        #expect(!record.failureMayBeContextRace(usesTLS: true, epochNow: quiet), "no context created since")
        #expect(record.failureMayBeContextRace(usesTLS: true, epochNow: creating))
        #expect(record.failureMayBeContextRace(usesTLS: true, epochNow: created))
        #expect(!record.failureMayBeContextRace(usesTLS: false, epochNow: created), "plain connections have no handshake")

        var startedDuringCreation = TLSHandshakeRecord()
        startedDuringCreation.connecting(epoch: creating)
        #expect(startedDuringCreation.failureMayBeContextRace(usesTLS: true, epochNow: creating),
                "the creation may take new indexes after this connection made its TLS session")

        var refused = TLSHandshakeRecord()
        refused.connecting(epoch: quiet)
        refused.certificateVerified(TLSCertificateProblem(verifyError: 18))
        #expect(!refused.failureMayBeContextRace(usesTLS: true, epochNow: created), "a refused certificate is a real answer")
        #expect(refused.certificateProblem?.kind == .untrusted)

        var accepted = TLSHandshakeRecord()
        accepted.connecting(epoch: quiet)
        accepted.certificateVerified(nil)
        #expect(accepted.certificateChecked && accepted.certificateProblem == nil)
        #expect(!accepted.failureMayBeContextRace(usesTLS: true, epochNow: created))
    }
}
