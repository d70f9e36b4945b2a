import EntityStream
import EntityStreamTestSupport
import Foundation

/// A real `nats-server` (Debian's package) with JetStream, on a loopback
/// port, its storage in a temporary directory removed at the end.
///
/// Starting one (``init(port:storage:mapping:cluster:)``, ``restarted()``)
/// spawns it and reads its log until it is ready on a thread of its own (a
/// ``BlockingIOThread``), not on Swift's cooperative pool, whose two threads
/// the tests awaiting sockets and children need meanwhile.
final class NATSServerProcess: @unchecked Sendable {
    let port: Int
    let storage: String
    let configuration: String
    private var process: ChildProcess?
    /// Started by ``shared(mapping:)``: a shell between this process and the server, which
    /// kills the server and removes its storage once its stdin (this process's pipe) closes.
    private let tiedToTestProcess: Bool

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
    /// `settings` are more lines of its configuration (`max_payload: 4096`).
    convenience init(port: Int = 0, storage: String? = nil, mapping: (prefix: String, count: Int)? = nil,
                     cluster: (name: String, port: Int, routes: [Int])? = nil, settings: [String] = []) async throws {
        try await self.init(port: port, storage: storage, mapping: mapping, cluster: cluster, settings: settings, tiedToTestProcess: false)
    }

    private init(port: Int, storage: String?, mapping: (prefix: String, count: Int)?,
                 cluster: (name: String, port: Int, routes: [Int])?, settings: [String] = [], tiedToTestProcess: Bool) async throws {
        guard let executable = Self.executable else { throw NATSTestError("nats-server is not installed (make setup installs it)") }
        let directory = storage ?? FileManager.default.temporaryDirectory.appendingPathComponent("es-nats-\(UUID().uuidString)").path
        var lines = ["listen: 127.0.0.1:\(port == 0 ? -1 : port)", "jetstream { store_dir: \"\(directory)\" }"]
        if let cluster {
            lines.append("server_name: es-\(cluster.port)")
            let routes = cluster.routes.map { "nats-route://127.0.0.1:\($0)" }.joined(separator: ", ")
            lines.append("cluster { name: \(cluster.name), listen: 127.0.0.1:\(cluster.port), routes: [\(routes)] }")
        }
        if let mapping {
            lines.append("mappings { \"\(mapping.prefix).*.*\": \"\(mapping.prefix).{{wildcard(1)}}.{{wildcard(2)}}.{{partition(\(mapping.count),1,2)}}\" }")
        }
        lines += settings
        let configuration = directory + ".conf"
        let text = lines.joined(separator: "\n")
        // A cluster node is ready to be joined once it listens; JetStream waits for the others.
        let marker = cluster == nil ? "Server is ready" : "Listening for client connections on"
        let (process, log) = try await Self.offPool {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try text.write(toFile: configuration, atomically: true, encoding: .utf8)
            return try Self.launch(executable, configuration: configuration, storage: directory, tied: tiedToTestProcess, until: marker)
        }
        guard let line = log.split(separator: "\n").first(where: { $0.contains("Listening for client connections on") }),
              let portText = line.split(separator: ":").last, let found = Int(portText.trimmingCharacters(in: .whitespaces)) else {
            process.signal(SIGKILL)
            throw NATSTestError("nats-server did not start: \(log)")
        }
        self.storage = directory
        self.configuration = configuration
        self.tiedToTestProcess = tiedToTestProcess
        self.process = process
        self.port = found
    }

    /// A server that lives as long as the test process (each call starts one), for tests that
    /// share it and neither stop nor restart it. A shell stands between: when this process
    /// ends, however it ends, its end of the shell's stdin closes, and the shell kills the
    /// server and removes its storage. Its children are never killed by the watchdog's
    /// ordinary limit (the whole run may take longer than 90 s).
    static func tiedToTestProcess(mapping: (prefix: String, count: Int)? = nil) async throws -> NATSServerProcess {
        try await NATSServerProcess(port: 0, storage: nil, mapping: mapping, cluster: nil, tiedToTestProcess: true)
    }

    /// Runs `body` (spawning, reading the log, waiting) on a thread of its own.
    private static func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        let thread = BlockingIOThread(name: "test-nats-server")
        defer { thread.shutdown() }
        return try await thread.run { Result { try body() } }.get()
    }

    /// Spawns the server (through the shell when `tied`) and reads its log until `marker`.
    private static func launch(_ executable: String, configuration: String, storage: String, tied: Bool,
                               until marker: String) throws -> (ChildProcess, String) {
        let process: ChildProcess
        if tied {
            // `read` returns at end of file: this process's end of the pipe closed. (No `wait`:
            // the shell inherits this process's blocked SIGCHLD and would wait for ever.)
            let script = #""$0" -c "$1" </dev/null & read -r _; kill -9 $!; rm -rf "$2" "$1""#
            process = try ChildProcess("/bin/sh", ["-c", script, executable, configuration, storage],
                                       output: .null, lifetime: .seconds(24 * 3600))
        } else {
            process = try ChildProcess(executable, ["-c", configuration], input: .null, output: .null)
        }
        let log = read(process.standardError, until: marker)
        if tied {
            // It logs as long as it lives (consumers, streams): its log is read on, and dropped,
            // so that a full pipe never stops it.
            let descriptor = process.standardError
            let drain = Thread { while !ChildProcess.read(descriptor).isEmpty {} }
            drain.name = "test-nats-server-log"
            drain.start()
        }
        return (process, log)
    }

    /// Its log (stderr) until a line contains `marker` (or the log ends).
    static func read(_ process: RunningProcess, until marker: String) -> String {
        read(process.child.standardError, until: marker)
    }

    static func read(_ descriptor: Int32, until marker: String) -> String {
        var text = ""
        while !text.contains(marker) {
            let chunk = ChildProcess.read(descriptor)
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// Kills the server at once (SIGKILL: no clean shutdown) and waits for it
    /// (a tied server: its shell kills it, then removes its storage).
    func kill() {
        if tiedToTestProcess { process?.closeInput() } else { process?.signal(SIGKILL) }
        _ = process?.wait()
        process = nil
    }

    /// Starts the same server again, on the same port and storage.
    func restarted() async throws -> NATSServerProcess {
        kill()
        return try await NATSServerProcess(reusing: self)
    }

    private init(reusing old: NATSServerProcess) async throws {
        guard let executable = Self.executable else { throw NATSTestError("nats-server is not installed") }
        port = old.port
        storage = old.storage
        configuration = old.configuration
        tiedToTestProcess = false
        let (configuration, storage, port) = (configuration, storage, port)
        let (process, log) = try await Self.offPool {
            var text = try String(contentsOfFile: configuration, encoding: .utf8)
            text = text.replacingOccurrences(of: "listen: 127.0.0.1:-1", with: "listen: 127.0.0.1:\(port)")
            try text.write(toFile: configuration, atomically: true, encoding: .utf8)
            return try Self.launch(executable, configuration: configuration, storage: storage, tied: false, until: "Server is ready")
        }
        guard log.contains("Server is ready") else {
            process.signal(SIGKILL)
            throw NATSTestError("nats-server did not restart: \(log)")
        }
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
