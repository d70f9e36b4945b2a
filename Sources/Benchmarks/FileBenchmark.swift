import EntityStreamCore
import Foundation
import EntityStreamModel

/// `entitystream-bench files`: statistics and a query over CSV files larger
/// than the engines' working memory, ours (`entitystream`, streamed) against
/// DuckDB (Python package, `threads = 2`, straight from the CSV) and SQLite
/// (`sqlite3` CLI: `.import`, then the query) when installed.
///
/// The file is made here (``generate(path:rows:)``, seeded, the same bytes
/// every time): `id,grp,cat,val,lon,lat,t`, 100 groups, values with three
/// decimals, times three seconds apart from 2024-01-01. Every contender is a
/// process started the same way, stdout through a pipe read by this process;
/// ours and DuckDB alternate `runs` times and the medians are reported, with
/// each one's median peak RSS and the load average before and after. SQLite
/// (minutes per run) runs once. Answers are compared: every group's count,
/// avg, stddev, min and max to 1e-9 relative against DuckDB's; the query's
/// count against DuckDB's. Then ours alone over 1 M, 10 M and 30 M rows
/// shows the peak RSS does not grow with the file.
enum FileBenchmark {
    static let statisticsArguments = ["--stat", "count:val", "--stat", "avg:val", "--stat", "stddev:val", "--stat", "min:val",
                                      "--stat", "max:val", "--group-by", "grp", "--format", "csv"]
    static let queryWhere = "val > 990"
    static let queryTime = ("2024-02-01", "2024-06-30")

    /// The file the benchmark makes: CSV, or the same rows as Esri JSON
    /// lines (`{"attributes":{id,grp,cat,val,t},"geometry":{x,y}}`, `t` in epoch ms).
    enum Format: String, CaseIterable {
        case csv, jsonl
    }

    static func run(rows: Int, runs: Int, sizes: [Int], directory: String, executable: String, peers: Bool,
                    fileFormat: Format = .csv) throws -> [String] {
        var lines: [String] = []
        func say(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            lines.append(line)
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let entitystream = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("entitystream").path
        guard FileManager.default.isExecutableFile(atPath: entitystream) else { throw BenchmarkError("no entitystream next to the benchmark at \(entitystream)") }
        let path = try ensureFile(rows: rows, directory: directory, format: fileFormat, say: say)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        say("files: \(path), \(rows) rows, \(size / 1_000_000) MB; machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB; load before: \(loadAverage())")

        // The python3 on PATH (through env), where `pip install duckdb` put it.
        let duck: String? = peers && (try? MeasuredProcess.run("/usr/bin/env", ["python3", "-c", "import duckdb"], output: .devNull))?.status == 0
            ? "/usr/bin/env" : nil
        if peers && duck == nil { say("files: DuckDB skipped (python3 -c 'import duckdb' fails)") }

        // Statistics.
        let ours = [entitystream, "statistics", path] + statisticsArguments
        let duckStatistics = duck.map { [$0, "python3", "-c", duckScript, "statistics", path, fileFormat.rawValue] }
        var outputs: [String: String] = [:]
        let statistics = try alternate(["entitystream": ours, "duckdb": duckStatistics].compactMapValues { $0 }, runs: runs, outputs: &outputs)
        for line in describe("statistics (group by grp: count, avg, stddev, min, max of val)", statistics) { say(line) }
        if let ourText = outputs["entitystream"], let duckText = outputs["duckdb"] {
            say("statistics answers: " + compare(ours: ourText, duck: duckText))
        }

        // Query: where and time extent, every match written.
        let ourQuery = [entitystream, "query", path, "--where", queryWhere, "--time", "\(queryTime.0),\(queryTime.1)",
                        "--columns", fileFormat == .csv ? "x=lon,y=lat,time=t" : "time=t"]
        let duckQuery = duck.map { [$0, "python3", "-c", duckScript, "query", path, fileFormat.rawValue] }
        outputs = [:]
        let query = try alternate(["entitystream": ourQuery, "duckdb": duckQuery].compactMapValues { $0 }, runs: runs, outputs: &outputs)
        for line in describe("query (where \(queryWhere), time \(queryTime.0) to \(queryTime.1), every match written)", query) { say(line) }
        if let ourText = outputs["entitystream"], let duckText = outputs["duckdb"] {
            let ourCount = ourText.split(whereSeparator: \.isNewline).filter { $0.contains("\"phase\":\"result\"") }.count
            let duckCount = max(0, duckText.split(whereSeparator: \.isNewline).count - 1)
            say("query answers: \(ourCount) features, DuckDB \(duckCount) rows" + (ourCount == duckCount ? " (equal)" : " (DIFFERENT)"))
        }

        // Peak memory against the file's size: ours alone.
        for count in sizes {
            let file = try ensureFile(rows: count, directory: directory, format: fileFormat, say: say)
            let run = try MeasuredProcess.run(entitystream, ["statistics", file] + statisticsArguments)
            guard run.status == 0 else { throw BenchmarkError("entitystream statistics failed on \(file): \(run.standardError)") }
            say("statistics memory, \(count) rows: peak \(run.maximumResidentKiB / 1024) MB, \(format(run.seconds)) s")
        }
        // SQLite, once each and last (it loads the file into a table first, which takes minutes).
        if peers, fileFormat == .csv, FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
            let group = "SELECT grp, COUNT(val), AVG(CAST(val AS REAL)), MIN(CAST(val AS REAL)), MAX(CAST(val AS REAL)) FROM t WHERE val <> '' GROUP BY grp ORDER BY grp;"
            let select = "SELECT * FROM t WHERE CAST(val AS REAL) > 990 AND t >= '\(queryTime.0) 00:00:00' AND t <= '\(queryTime.1) 00:00:00';"
            for (name, sql) in [("statistics", group), ("query", select)] {
                let run = try MeasuredProcess.run("/usr/bin/sqlite3", [":memory:", "-cmd", ".mode csv", "-cmd", ".import \(path) t", sql])
                say("sqlite \(name) (.import, then the query; no stddev): \(format(run.seconds)) s, peak \(run.maximumResidentKiB / 1024) MB, "
                    + "\(run.outputLines) lines, exit \(run.status) [1 run]")
            }
        } else if peers {
            say("files: SQLite skipped (no /usr/bin/sqlite3)")
        }

        say("files: load after: \(loadAverage())")
        return lines
    }

    // MARK: Running

    struct Measured {
        var seconds: [Double] = []
        var peakKiB: [Double] = []
        var cpu: [Double] = []
    }

    /// Runs every contender `runs` times in turn (a, b, a, b, …), each
    /// through a pipe; keeps each one's last stdout in `outputs`.
    static func alternate(_ contenders: [String: [String]], runs: Int, outputs: inout [String: String]) throws -> [(String, Measured)] {
        let names = contenders.keys.sorted()
        var measured = Dictionary(uniqueKeysWithValues: names.map { ($0, Measured()) })
        for round in 0..<runs {
            for name in (round % 2 == 0 ? names : names.reversed()) {
                let command = contenders[name]!
                let (run, text) = try MeasuredProcess.runCapturing(command[0], Array(command.dropFirst()))
                guard run.status == 0 else { throw BenchmarkError("\(name) failed (exit \(run.status)): \(run.standardError.suffix(600))") }
                measured[name]!.seconds.append(run.seconds)
                measured[name]!.peakKiB.append(Double(run.maximumResidentKiB))
                measured[name]!.cpu.append(run.cpuSeconds)
                outputs[name] = text
            }
        }
        return names.map { ($0, measured[$0]!) }
    }

    static func describe(_ title: String, _ results: [(String, Measured)]) -> [String] {
        var lines = results.map { name, measured in
            "\(title), \(name): median \(format(median(measured.seconds))) s (runs \(measured.seconds.map(format).joined(separator: ", "))), "
                + "CPU \(format(median(measured.cpu))) s, peak RSS \(Int(median(measured.peakKiB) / 1024)) MB"
        }
        if let ours = results.first(where: { $0.0 == "entitystream" })?.1, let duck = results.first(where: { $0.0 == "duckdb" })?.1 {
            lines.append("\(title): entitystream / DuckDB = \(String(format: "%.2f", median(ours.seconds) / median(duck.seconds)))×")
        }
        return lines
    }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown"
    }

    /// Every group's count, avg, stddev, min and max, ours against DuckDB's, to 1e-9 relative.
    static func compare(ours: String, duck: String) -> String {
        func table(_ text: String) -> [String: [Double]] {
            var rows: [String: [Double]] = [:]
            for line in text.split(whereSeparator: \.isNewline).dropFirst() {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 6 else { continue }
                rows[fields[0]] = fields.dropFirst().map { Double($0) ?? .nan }
            }
            return rows
        }
        let a = table(ours), b = table(duck)
        guard !a.isEmpty, a.keys.sorted() == b.keys.sorted() else { return "DIFFERENT groups (\(a.count) against \(b.count))" }
        var worst = 0.0
        for (key, values) in a {
            for (x, y) in zip(values, b[key]!) {
                let error = x == y ? 0 : abs(x - y) / max(abs(x), abs(y))
                worst = max(worst, error.isNaN ? .infinity : error)
            }
        }
        return "\(a.count) groups, largest relative difference from DuckDB \(String(format: "%.1e", worst))" + (worst <= 1e-9 ? " (within 1e-9)" : " (NOT within 1e-9)")
    }

    /// DuckDB straight from the CSV, two threads; the answer as CSV on stdout.
    static let duckScript = #"""
import sys, duckdb
mode, path, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
con = duckdb.connect(":memory:", config={"threads": 2})
con.execute("SET enable_progress_bar = false")   # it draws on stdout, an extra line of the answer
quoted = path.replace("'", "''")
if fmt == "csv":
    source = "read_csv_auto('%s')" % quoted
    inTime = "t >= TIMESTAMP '2024-02-01' AND t <= TIMESTAMP '2024-06-30'"
else:
    # Esri JSON lines: the attributes as columns, t in epoch ms.
    source = "(SELECT attributes.*, geometry.x AS x, geometry.y AS y FROM read_json_auto('%s', format='newline_delimited'))" % quoted
    inTime = "t >= 1706745600000 AND t <= 1719705600000"
if mode == "statistics":
    rows = con.execute("SELECT grp, COUNT(val), AVG(val), STDDEV_SAMP(val), MIN(val), MAX(val) FROM %s GROUP BY grp ORDER BY grp" % source).fetchall()
    out = ["grp,count,avg,stddev,min,max"] + [",".join(repr(v) if isinstance(v, float) else str(v) for v in r) for r in rows]
    sys.stdout.write("\n".join(out) + "\n")
else:
    con.execute("COPY (SELECT * FROM %s WHERE val > 990 AND %s) TO '/dev/stdout' (FORMAT CSV, HEADER)" % (source, inTime))
"""#

    // MARK: The file

    /// `directory/rowsN.csv` (or `.jsonl`), made when absent.
    static func ensureFile(rows: Int, directory: String, format fileFormat: Format = .csv, say: (String) -> Void) throws -> String {
        let path = "\(directory)/rows\(rows).\(fileFormat.rawValue)"
        if FileManager.default.fileExists(atPath: path) { return path }
        let started = ContinuousClock.now
        try generate(path: path + ".partial", rows: rows, format: fileFormat)
        try FileManager.default.moveItem(atPath: path + ".partial", toPath: path)
        say("files: generated \(path) in \(format((ContinuousClock.now - started).seconds)) s")
        return path
    }

    /// Writes the benchmark file: `id,grp,cat,val,lon,lat,t`, seeded; as
    /// Esri JSON lines the same values (`t` in epoch milliseconds).
    static func generate(path: String, rows: Int, format: Format = .csv) throws {
        guard let file = fopen(path, "w") else { throw BenchmarkError("cannot write \(path)") }
        defer { fclose(file) }
        var random = SplitMix64(seed: 20_261_127)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 22)
        if format == .csv { buffer.append(contentsOf: Array("id,grp,cat,val,lon,lat,t\n".utf8)) }
        let json = format == .jsonl
        func text(_ string: String) { buffer.append(contentsOf: Array(string.utf8)) }
        let categories = ["alpha", "bravo", "charlie", "delta", "echo"].map { Array($0.utf8) }
        let start: Int64 = 1_704_067_200   // 2024-01-01T00:00:00Z
        func integer(_ value: Int64) {
            var digits: [UInt8] = []
            var v = value
            repeat {
                digits.append(UInt8(48 + v % 10))
                v /= 10
            } while v > 0
            buffer.append(contentsOf: digits.reversed())
        }
        func padded(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var v = value
            while divisor > 0 {
                buffer.append(UInt8(48 + (v / divisor) % 10))
                v %= divisor
                divisor /= 10
            }
        }
        func decimal(_ scaled: Int64, places: Int) {
            var scale: Int64 = 1
            for _ in 0..<places { scale *= 10 }
            if scaled < 0 { buffer.append(UInt8(ascii: "-")) }
            let magnitude = abs(scaled)
            integer(magnitude / scale)
            buffer.append(UInt8(ascii: "."))
            padded(magnitude % scale, places)
        }
        for row in 0..<rows {
            let group = Int64(random.next(below: 100))
            let category = categories[random.next(below: categories.count)]
            let value = Int64(random.next(below: 2_000_001)) - 1_000_000
            let lon = Int64(random.next(below: 36_000_001)) - 18_000_000
            let lat = Int64(random.next(below: 18_000_001)) - 9_000_000
            let seconds = start + Int64(row) * 3
            if json {
                text("{\"attributes\":{\"id\":"); integer(Int64(row + 1))
                text(",\"grp\":\"g"); integer(group)
                text("\",\"cat\":\""); buffer.append(contentsOf: category)
                text("\",\"val\":"); decimal(value, places: 3)
                text(",\"t\":"); integer(seconds * 1000)
                text("},\"geometry\":{\"x\":"); decimal(lon, places: 5)
                text(",\"y\":"); decimal(lat, places: 5)
                text("}}\n")
            } else {
                integer(Int64(row + 1))
                buffer.append(UInt8(ascii: ","))
                buffer.append(UInt8(ascii: "g"))
                integer(group)
                buffer.append(UInt8(ascii: ","))
                buffer.append(contentsOf: category)
                buffer.append(UInt8(ascii: ","))
                decimal(value, places: 3)
                buffer.append(UInt8(ascii: ","))
                decimal(lon, places: 5)
                buffer.append(UInt8(ascii: ","))
                decimal(lat, places: 5)
                buffer.append(UInt8(ascii: ","))
                let days = seconds / 86_400, time = seconds % 86_400
                let (year, month, day) = civil(days)
                padded(year, 4); buffer.append(UInt8(ascii: "-")); padded(month, 2); buffer.append(UInt8(ascii: "-")); padded(day, 2)
                buffer.append(UInt8(ascii: " "))
                padded(time / 3600, 2); buffer.append(UInt8(ascii: ":")); padded(time / 60 % 60, 2); buffer.append(UInt8(ascii: ":")); padded(time % 60, 2)
                buffer.append(UInt8(ascii: "\n"))
            }
            if buffer.count > (1 << 22) - 256 {
                guard fwrite(buffer, 1, buffer.count, file) == buffer.count else { throw BenchmarkError("cannot write \(path)") }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        guard fwrite(buffer, 1, buffer.count, file) == buffer.count else { throw BenchmarkError("cannot write \(path)") }
    }

    /// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian).
    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
