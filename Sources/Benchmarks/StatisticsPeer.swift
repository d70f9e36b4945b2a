import Foundation

/// A SQL engine run by `python3 -c` (SQLite through the standard library's
/// `sqlite3`, or DuckDB through its Python package) that loads the
/// benchmark CSV once, then answers commands on stdin line by line:
/// `run` times only the GROUP BY query (prints `time SECONDS`), `result`
/// prints the result rows as one JSON line, `quit` ends. So runs alternate
/// with ours and only the query is timed on both sides.
final class StatisticsPeer {
    enum Engine: String { case sqlite, duckdb }

    let engine: Engine
    let version: String
    let loadSeconds: Double
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    /// The query both engines run. SQLite has no STDDEV: it gets the
    /// sum-of-squares form, (Σx² − (Σx)²/n)/(n − 1), and Python takes the
    /// square root; DuckDB uses its own STDDEV_SAMP. NULLs first, as ours.
    static func query(for engine: Engine) -> String {
        let deviation = engine == .sqlite
            ? "(SUM(speed*speed) - SUM(speed)*SUM(speed)/COUNT(speed)) / (COUNT(speed) - 1)"
            : "STDDEV_SAMP(speed)"
        return "SELECT vehicletype, agency, COUNT(speed), AVG(speed), \(deviation), SUM(payload), MAX(heading) "
            + "FROM t GROUP BY vehicletype, agency ORDER BY vehicletype NULLS FIRST, agency NULLS FIRST"
    }

    static let script = #"""
import sys, time, json, math, csv
engine, path, query = sys.argv[1], sys.argv[2], sys.argv[3]
start = time.perf_counter()
if engine == "sqlite":
    import sqlite3
    version = sqlite3.sqlite_version
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t(vehicletype TEXT, agency INTEGER, speed REAL, payload INTEGER, heading REAL)")
    def rows():
        with open(path, newline="") as f:
            reader = csv.reader(f)
            next(reader)
            for v, a, s, p, h in reader:
                yield (v, int(a) if a else None, float(s) if s else None, int(p), float(h))
    con.executemany("INSERT INTO t VALUES (?,?,?,?,?)", rows())
    con.commit()
else:
    import duckdb
    version = duckdb.__version__
    con = duckdb.connect(":memory:", config={"threads": 1})
    con.execute("CREATE TABLE t(vehicletype VARCHAR, agency INTEGER, speed DOUBLE, payload BIGINT, heading DOUBLE)")
    con.execute("INSERT INTO t SELECT * FROM read_csv(?, header=true, columns={'vehicletype':'VARCHAR','agency':'INTEGER','speed':'DOUBLE','payload':'BIGINT','heading':'DOUBLE'})", [path])
print("ready", time.perf_counter() - start, version, flush=True)
result = None
for line in sys.stdin:
    command = line.strip()
    if command == "run":
        t0 = time.perf_counter()
        result = con.execute(query).fetchall()
        if engine == "sqlite":
            result = [r[:4] + ((math.sqrt(max(0.0, r[4])) if r[4] is not None else None),) + r[5:] for r in result]
        print("time", time.perf_counter() - t0, flush=True)
    elif command == "result":
        print(json.dumps([list(r) for r in result]), flush=True)
    else:
        break
"""#

    /// Starts the engine and waits until it has loaded `csv`; throws when
    /// python3 or the engine's module is missing or loading fails.
    init(engine: Engine, python: String, csv: String) throws {
        self.engine = engine
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.script, engine.rawValue, csv, Self.query(for: engine)]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var ready: [Substring] = []
        do {
            ready = try Self.readLine(output, &buffer).split(separator: " ")
        } catch {
            process.terminate()
            throw error
        }
        guard ready.count == 3, ready[0] == "ready", let seconds = Double(ready[1]) else {
            throw BenchmarkError("\(engine.rawValue) peer did not load the data")
        }
        loadSeconds = seconds
        version = String(ready[2])
    }

    deinit {
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        process.waitUntilExit()
    }

    /// Runs the query once; returns the seconds the engine took for it.
    func run() throws -> Double {
        try send("run")
        let reply = try Self.readLine(output, &buffer).split(separator: " ")
        guard reply.count == 2, reply[0] == "time", let seconds = Double(reply[1]) else {
            throw BenchmarkError("\(engine.rawValue) peer answered no time")
        }
        return seconds
    }

    /// The rows of the last run: vehicletype, agency, count, avg, stddev, sum, max.
    func result() throws -> [[Any]] {
        try send("result")
        let line = try Self.readLine(output, &buffer)
        guard let rows = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[Any]] else {
            throw BenchmarkError("\(engine.rawValue) peer sent no result rows")
        }
        return rows
    }

    private func send(_ command: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    private static func readLine(_ pipe: Pipe, _ buffer: inout Data) throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { throw BenchmarkError("peer closed its output") }
            buffer.append(chunk)
        }
    }
}
