import EntityStreamTestSupport
import Foundation

/// A real `nats-server` (Debian's package) with JetStream, on a loopback
/// port, its storage in a temporary directory removed at the end.
final class NATSServerProcess: @unchecked Sendable {
    let port: Int
    let storage: String
    let configuration: String
    private var process: RunningProcess?

    /// The server's executable: on PATH, or where Debian installs it.
    static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") + ["/usr/sbin", "/usr/bin"] {
            let candidate = "\(directory)/nats-server"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Starts a server; `mapping` partitions `PREFIX.service.track` into N
    /// (the README's configuration); `cluster` joins the given route ports.
    init(port: Int = 0, storage: String? = nil, mapping: (prefix: String, count: Int)? = nil,
         cluster: (name: String, port: Int, routes: [Int])? = nil) throws {
        guard let executable = Self.executable else { throw NATSTestError("nats-server is not installed (make setup installs it)") }
        let directory = storage ?? FileManager.default.temporaryDirectory.appendingPathComponent("es-nats-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.storage = directory
        var lines = ["listen: 127.0.0.1:\(port == 0 ? -1 : port)", "jetstream { store_dir: \"\(directory)\" }"]
        if let cluster {
            lines.append("server_name: es-\(cluster.port)")
            let routes = cluster.routes.map { "nats-route://127.0.0.1:\($0)" }.joined(separator: ", ")
            lines.append("cluster { name: \(cluster.name), listen: 127.0.0.1:\(cluster.port), routes: [\(routes)] }")
        }
        if let mapping {
            lines.append("mappings { \"\(mapping.prefix).*.*\": \"\(mapping.prefix).{{wildcard(1)}}.{{wildcard(2)}}.{{partition(\(mapping.count),1,2)}}\" }")
        }
        configuration = directory + ".conf"
        try lines.joined(separator: "\n").write(toFile: configuration, atomically: true, encoding: .utf8)
        let process = try RunningProcess(executable, ["-c", configuration])
        let log = Self.read(process, until: cluster == nil ? "Server is ready" : "Listening for client connections on")
        guard let line = log.split(separator: "\n").first(where: { $0.contains("Listening for client connections on") }),
              let portText = line.split(separator: ":").last, let found = Int(portText.trimmingCharacters(in: .whitespaces)) else {
            throw NATSTestError("nats-server did not start: \(log)")
        }
        self.process = process
        self.port = found
    }

    /// Its log (stderr) until a line contains `marker` (or the log ends).
    static func read(_ process: RunningProcess, until marker: String) -> String {
        var text = ""
        while !text.contains(marker) {
            let chunk = ChildProcess.read(process.child.standardError)
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// Kills the server at once (SIGKILL: no clean shutdown) and waits for it.
    func kill() {
        process?.signal(SIGKILL)
        _ = process?.wait()
        process = nil
    }

    /// Starts the same server again, on the same port and storage.
    func restarted() throws -> NATSServerProcess {
        kill()
        return try NATSServerProcess(reusing: self)
    }

    private init(reusing old: NATSServerProcess) throws {
        guard let executable = Self.executable else { throw NATSTestError("nats-server is not installed") }
        port = old.port
        storage = old.storage
        configuration = old.configuration
        var text = try String(contentsOfFile: configuration, encoding: .utf8)
        text = text.replacingOccurrences(of: "listen: 127.0.0.1:-1", with: "listen: 127.0.0.1:\(port)")
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
        let process = try RunningProcess(executable, ["-c", configuration])
        let log = Self.read(process, until: "Server is ready")
        guard log.contains("Server is ready") else { throw NATSTestError("nats-server did not restart: \(log)") }
        self.process = process
    }

    deinit {
        kill()
    }

    /// Removes the storage (once no server uses it).
    func removeStorage() {
        try? FileManager.default.removeItem(atPath: storage)
        try? FileManager.default.removeItem(atPath: configuration)
    }
}

struct NATSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
