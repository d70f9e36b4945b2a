import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel

/// Raw bytes at the in-process simulator's HTTP and WebSocket surface:
/// mutated requests and mutated frames over raw TCP. The server answers with
/// a well-formed HTTP status (an error for what it cannot serve) or closes,
/// speaks only well-formed frames with valid close codes, never crashes, and
/// still serves a normal description request afterwards.
@Suite("Simulator surface fuzzing", .bounded(.io, limit: FuzzRounds.timeLimit))
struct SimulatorSurfaceFuzzTests {
    static let service = "Fuzzed"

    /// Requests the simulator serves (`PORT` is replaced by its port).
    static let requests: [String] = [
        "GET /arcgis/rest/services/Fuzzed/StreamServer?f=json HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n",
        "GET /arcgis/rest/services?f=json HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nConnection: close\r\n\r\n",
        "GET /arcgis/rest/services/Fuzzed/StreamServer?f=pjson&token=x%20y HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nAccept: */*\r\nUser-Agent: fuzz\r\n\r\n",
        "POST /arcgis/rest/services/Fuzzed/StreamServer HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 6\r\n\r\nf=json",
        "GET /arcgis/rest/services/Fuzzed/FeatureServer/0/query?where=1%3D1&outFields=*&f=json HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n",
        "GET /arcgis/rest/services/Fuzzed/StreamServer?f=json HTTP/1.0\r\n\r\n",
    ]

    static let dictionary = ["\r\n", "\r\n\r\n", "\n", ":", " ", "%", "%00", "%ZZ", "?", "&", "=", "/..", "//", "Content-Length: 99999999999999999999\r\n",
                             "Content-Length: -1\r\n", "Transfer-Encoding: chunked\r\n", "Host: \r\n", "Upgrade: websocket\r\n",
                             "Connection: Upgrade\r\n", "HTTP/1.1", "HTTP/9.9", "GET", "POST", "DELETE", "token=", "f=", String(repeating: "A", count: 5000)]

    static func isValidCloseCode(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// Checks an answer to raw bytes: nothing, or an HTTP status line (no 5xx but 501/505), then what follows it.
    static func checkHTTP(_ answer: RawTCPExchange.Answer, _ context: @autoclosure () -> String) -> Int? {
        guard answer.connected else {
            Issue.record("the server refused a connection — \(context())")
            return nil
        }
        guard !answer.bytes.isEmpty else { return nil }
        let text = answer.text
        let head = text.prefix(12)
        guard head.count == 12, head.hasPrefix("HTTP/1.1 ") || head.hasPrefix("HTTP/1.0 "), let status = Int(head.suffix(3)) else {
            Issue.record("not an HTTP status line: \(text.prefix(80).debugDescription) — \(context())")
            return nil
        }
        #expect((100...599).contains(status) && (status < 500 || status == 501 || status == 505), "status \(status) — \(context())")
        return status
    }

    /// Checks the server's frames after a 101 answer: unmasked, known opcodes, a close frame's code valid.
    static func checkFrames(_ bytes: ArraySlice<UInt8>, _ context: @autoclosure () -> String) {
        var index = bytes.startIndex
        while bytes.endIndex - index >= 2 {
            let first = bytes[index], second = bytes[index + 1]
            #expect(second & 0x80 == 0, "a masked server frame — \(context())")
            #expect([0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(first & 0x0F), "opcode \(first & 0x0F) — \(context())")
            var length = Int(second & 0x7F)
            var header = 2
            if length == 126 {
                guard bytes.endIndex - index >= 4 else { return }
                length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                header = 4
            } else if length == 127 {
                guard bytes.endIndex - index >= 10 else { return }
                length = 0
                for offset in 2..<10 { length = length << 8 | Int(bytes[index + offset]) }
                header = 10
            }
            guard length >= 0, bytes.endIndex - index - header >= length else { return }   // cut by the read limit or the close
            let payload = bytes[(index + header)..<(index + header + length)]
            if first & 0x0F == 0x8 {
                #expect(payload.count != 1, "a one-byte close payload — \(context())")
                if payload.count >= 2 {
                    let code = Int(payload[payload.startIndex]) << 8 | Int(payload[payload.startIndex + 1])
                    #expect(Self.isValidCloseCode(code), "close code \(code) — \(context())")
                }
            }
            index += header + length
        }
    }

    /// The description answers normally: the server survived.
    static func checkStillServes(_ server: SimulatorServer, _ context: String) async {
        let description = try? await HTTPClient().get(server.serviceURL(service) + "?f=json")
        let parsed = description.flatMap { try? JSONParser.parse($0.body) }
        #expect(parsed?["fields"]?.arrayValue?.isEmpty == false, "the description is no longer served — \(context)")
    }

    /// A client frame: FIN as given, `opcode`, masked with `key` (when given).
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true, key: [UInt8]?) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let mask: UInt8 = key == nil ? 0 : 0x80
        if payload.count < 126 {
            frame.append(mask | UInt8(payload.count))
        } else {
            frame += [mask | 126, UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
        }
        guard let key else { return frame + payload }
        return frame + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// A few valid client frames (filter messages, control frames, fragments), mutated as a whole.
    static func frames(_ mutator: inout ByteMutator) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<mutator.int(1...4) {
            let key = (0..<4).map { _ in UInt8(truncatingIfNeeded: mutator.rng.next()) }
            switch mutator.int(0...6) {
            case 0: bytes += frame(opcode: 0x1, payload: Array(#"{"filter":{"where":"speed > 1","outFields":"*"}}"#.utf8), key: key)
            case 1: bytes += frame(opcode: 0x1, payload: Array(#"{"filter":{"geometry":{"xmin":-112,"ymin":40,"xmax":-111,"ymax":41},"outSR":3857}}"#.utf8), key: key)
            case 2: bytes += frame(opcode: 0x9, payload: Array("ping".utf8), key: key)
            case 3: bytes += frame(opcode: 0xA, payload: [], key: key)
            case 4: bytes += frame(opcode: 0x1, payload: Array(#"{"filter":"#.utf8), fin: false, key: key)
                    bytes += frame(opcode: 0x0, payload: Array(#"{"where":"1=1"}}"#.utf8), key: key)
            case 5: bytes += frame(opcode: 0x2, payload: [0, 1, 2, 0xFF], key: key)
            default: bytes += frame(opcode: 0x8, payload: [0x03, 0xE8] + Array("bye".utf8), key: key)
            }
        }
        return mutator.mutate(bytes, count: mutator.int(1...4))
    }

    /// Mutated HTTP requests are answered with a well-formed status or a close; the server serves normally afterwards.
    @Test func mutatedHTTPRequests() async throws {
        let server = try await startSimulator([ServiceSpecification(name: Self.service, source: .fleet(FleetConfiguration(vehicles: 2)))])
        await FuzzRounds.run("simulator HTTP", fixed: [0x5117_01]) { seed in
            var mutator = ByteMutator(seed: seed, dictionary: Self.dictionary)
            for wave in 0..<8 {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<6 {
                        let template = Array(mutator.pick(Self.requests).replacingOccurrences(of: "PORT", with: "\(server.port)").utf8)
                        let request = mutator.mutate(template, count: mutator.int(1...4))
                        let closeWriting = mutator.rng.chance(0.7)
                        group.addTask {
                            let answer = await RawTCPExchange.exchange(port: server.port, send: request, readLimit: 1 << 16, timeoutMilliseconds: 400,
                                                                       closeWriting: closeWriting)
                            _ = Self.checkHTTP(answer, "\(FuzzRounds.label(seed)) request \(String(decoding: request.prefix(300), as: UTF8.self).debugDescription)")
                        }
                    }
                }
                if wave % 4 == 3 { await Self.checkStillServes(server, FuzzRounds.label(seed)) }
            }
        }
        await server.shutdown()
    }

    /// Mutated WebSocket frames after a valid upgrade: the server upgrades, then speaks only well-formed frames (valid close codes) or closes; it serves normally afterwards.
    @Test func mutatedWebSocketFrames() async throws {
        let server = try await startSimulator([ServiceSpecification(name: Self.service, source: .fleet(FleetConfiguration(vehicles: 2)))])
        let upgrade = Array(("GET /arcgis/ws/services/\(Self.service)/StreamServer/subscribe HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
        await FuzzRounds.run("simulator WebSocket", fixed: [0x5117_11]) { seed in
            var mutator = ByteMutator(seed: seed, dictionary: ["\u{0}", "\u{FF}", "\u{80}"])
            for wave in 0..<8 {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<6 {
                        let frames = Self.frames(&mutator)
                        let closeWriting = mutator.rng.chance(0.7)
                        group.addTask {
                            let answer = await RawTCPExchange.exchange(port: server.port, send: upgrade + frames, readLimit: 1 << 16,
                                                                       timeoutMilliseconds: 400, closeWriting: closeWriting)
                            let context = "\(FuzzRounds.label(seed)) frames \(frames)"
                            guard let status = Self.checkHTTP(answer, context) else { return }
                            #expect(status == 101, "the valid upgrade was refused: \(status) — \(context)")
                            guard let end = answer.bytes.firstRange(of: [13, 10, 13, 10])?.upperBound else {
                                Issue.record("no end of the 101 head — \(context)")
                                return
                            }
                            Self.checkFrames(answer.bytes[end...], context)
                        }
                    }
                }
                if wave % 4 == 3 { await Self.checkStillServes(server, FuzzRounds.label(seed)) }
            }
        }
        await server.shutdown()
    }
}
