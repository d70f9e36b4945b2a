import EntityStreamTestSupport
import Testing
import EntityStreamTransport

@Suite("A server's socket send buffer (the slow-subscriber tests' seam)", .bounded)
struct SocketSendBufferTests {
    /// The configuration's size wins, then `ENTITYSTREAM_SERVER_SEND_BUFFER`, then none (the kernel's); a size
    /// outside 4 KiB-64 MiB, or a variable that is not a whole number of bytes, is refused naming it.
    @Test func resolvesTheConfigurationThenTheEnvironment() throws {
        let variable = "ENTITYSTREAM_SERVER_SEND_BUFFER"
        #expect(try SocketSendBuffer.resolve(nil, environment: [:]) == nil)
        #expect(try SocketSendBuffer.resolve(8192, environment: [variable: "65536"]) == 8192)
        #expect(try SocketSendBuffer.resolve(nil, environment: [variable: "65536"]) == 65536)
        #expect(try SocketSendBuffer.resolve(nil, environment: [variable: "4096"]) == 4096)
        #expect(try SocketSendBuffer.resolve(nil, environment: [variable: String(64 << 20)]) == 64 << 20)
        for bad in ["", "4K", "4095", String((64 << 20) + 1), "-4096", " 4096", "1e4"] {
            #expect {
                _ = try SocketSendBuffer.resolve(nil, environment: [variable: bad])
            } throws: { error in
                (error as? TransportError) == .serverStartFailed(
                    detail: "\(variable)='\(bad)': give a whole number of bytes from 4096 to 67108864")
            }
        }
        #expect {
            _ = try SocketSendBuffer.resolve(100, environment: [:])
        } throws: { error in
            (error as? TransportError) == .serverStartFailed(detail: "a socket send buffer of 100 bytes: give 4096 to 67108864")
        }
    }

    /// A server asked for a send buffer it does not accept does not start.
    @Test func aServerWithABadSizeDoesNotStart() async {
        var configuration = ServerConfiguration()
        configuration.sendBufferBytes = 1
        await #expect(throws: TransportError.self) { _ = try await TransportServer.start(configuration) }
    }
}
