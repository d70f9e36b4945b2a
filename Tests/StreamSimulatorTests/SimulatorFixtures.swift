import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import StreamSimulator
import EntityStreamTransport

/// A feature-lines file of `count` vehicles' positions: `name` TRUCK 0…9,
/// `speed` cycling 0…9, `agency` 3 or 4, spread over a small area.
func writeFeatureLines(count: Int) throws -> String {
    var lines: [String] = []
    for index in 0..<count {
        let x = -112.0 + Double(index % 50) * 0.004
        let y = 40.55 + Double(index / 50 % 40) * 0.004
        lines.append("{\"geometry\":{\"x\":\(x),\"y\":\(y),\"spatialReference\":{\"wkid\":4326}},\"attributes\":{\"name\":\"TRUCK \(index % 10)\",\"speed\":\(Double(index % 10)),\"agency\":\(3 + index % 2),\"seq\":\(index)}}")
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("features-\(UUID().uuidString).json").path
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Starts a simulator with the given services and options on a free port.
func startSimulator(_ services: [ServiceSpecification], configure: (inout SimulatorConfiguration) -> Void = { _ in }) async throws -> SimulatorServer {
    var configuration = SimulatorConfiguration()
    configuration.port = 0
    configuration.services = services
    configure(&configuration)
    return try await SimulatorServer.start(configuration)
}

/// Connection options with a fast reconnect policy on a real clock.
func quickOptions(where clause: String? = nil) -> StreamConnectionOptions {
    var options = StreamConnectionOptions()
    options.filter.whereClause = clause
    options.reconnectPolicy = ReconnectPolicy(maximumAttempts: 3, immediateAttempts: 3, intervalMilliseconds: 0, stableAfterMilliseconds: 60_000)
    return options
}
