import EntityStreamCommandLine
import EntityStream
import EntityStreamAnalyses
import EntityStreamCore
import Foundation
import EntityStreamJetStream
import EntityStreamStatistics
import EntityStreamModel

/// `entitystream fleet nats://HOST:PORT/GROUP REQUEST --expect N`:
/// statistics over every consumer of a fleet group at once.
struct FleetCommand: RunnableCommand {
    var address: NATSAddress?
    var request: FleetStatisticsRequest?
    var expected = 1
    var waitSeconds = 5.0

    static let help = """
    Usage: entitystream fleet nats://HOST:PORT[,HOST:PORT…]/GROUP REQUEST --expect N [--wait S]

    Asks every `entitystream consume` of fleet group GROUP (by default a
    consumer's group is its stream's name) for grouped statistics over its
    store, and merges their partial results (counts, sums, extremes and
    moments) into one answer: over N partitioned consumers, the same answer
    as one process holding everything. REQUEST is the JSON of the
    `statistics` control command without id and command, e.g.
      '{"statistics":["count:SOG","avg:SOG","max:SOG"],"groupBy":["VesselName"],"of":"observations",
        "timeExtent":{"start":"2026-11-27T00:00:00Z","end":null}}'
    Prints one JSON line per group record ("phase":"result") and a summary
    naming the members that answered and the partitions that did not
    (exit status 1 when one is missing: the answer is then incomplete).

    Options:
      --expect N                  members (partitions 0/N … N-1/N) to wait for (default 1)
      --wait S                    seconds to wait for them (default 5)
      -h, --help                  show this help
    """

    init(arguments: inout ArgumentList) throws {
        while let word = try arguments.next() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--expect": expected = try arguments.integer(for: word, minimum: 1, maximum: TrackPartition.maximumCount)
            case "--wait": waitSeconds = try arguments.seconds(for: word, minimum: 0, inclusive: false)
            default:
                if word.hasPrefix("-") { throw arguments.unknownOption(word, command: "fleet") }
                if address == nil {
                    do { address = try NATSAddress(parsing: word, nameIs: "fleet group", environment: ProcessInfo.processInfo.environment) } catch {
                        throw UsageError.invalidArgument(command: "fleet", error: error)
                    }
                } else if request == nil {
                    do { request = try FleetStatisticsRequest(json: word) } catch {
                        throw UsageError.invalidArgument(command: "fleet", operand: "request", error: error)
                    }
                } else {
                    throw UsageError.unexpectedArgument(word, command: "fleet")
                }
            }
        }
        guard address != nil else { throw UsageError.missingArgument("nats://HOST:PORT/GROUP", command: "fleet") }
        guard request != nil else { throw UsageError.missingArgument("the statistics REQUEST (JSON)", command: "fleet") }
    }

    func run() async throws -> Int32 {
        guard let address, let request else { return 2 }
        let thread = BlockingIOThread(name: "entitystream-fleet")
        defer { thread.shutdown() }
        let (expected, wait) = (expected, waitSeconds)
        let collected = try await thread.run {
            Result { () throws -> FleetAsker.Answers in
                let connection = try NATSConnection(address: address, name: "entitystream fleet")
                defer { connection.close() }
                return try FleetAsker.ask(request, group: address.name, over: connection, expected: expected, seconds: wait)
            }
        }.get()
        let merged = try request.merge(collected.answers)
        var output = JSONWriter(capacity: 4096)
        if let (result, _) = merged {
            for record in result.records {
                var line = JSONObject([("event", .string("fleet")), ("phase", .string("result"))])
                line.append(contentsOf: record.members)
                output.append(.object(line))
                output.appendRaw(UInt8(ascii: "\n"))
            }
        }
        var summary = JSONObject([("event", .string("fleet")), ("phase", .string("summary")), ("group", .string(address.name))])
        summary.append(key: "answered", value: .array(collected.answers.map { answer in
            var member = JSONObject([("member", answer["member"] ?? .null)])
            if let partition = answer["partition"] { member.append(key: "partition", value: partition) }
            member.append(key: "observations", value: answer["observations"] ?? .null)
            if let error = answer["error"] { member.append(key: "error", value: error) }
            return .object(member)
        }))
        let missingCount = max(0, expected - collected.answers.count)
        summary.append(key: "missing", value: .array(collected.missingPartitions.map { .string($0) }))
        summary.append(key: "missingCount", value: .int(Int64(missingCount)))
        let failed = collected.answers.contains { $0["error"] != nil }
        summary.append(key: "complete", value: .bool(missingCount == 0 && !failed))
        if let (result, plan) = merged {
            summary.append(key: "rows", value: .int(Int64(result.rowCount)))
            summary.append(key: "groups", value: .int(Int64(result.groupCount)))
            summary.append(key: "records", value: .int(Int64(result.records.count)))
            StatisticsNames(plan).append(to: &summary)
        }
        output.append(.object(summary))
        output.appendRaw(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(Data(output.bytes))
        if missingCount > 0 {
            let names = collected.missingPartitions.isEmpty ? "\(missingCount) members" : collected.missingPartitions.joined(separator: ", ")
            Stderr.line("entitystream: fleet: no answer within \(wait) s from \(names); the result is incomplete")
            return 1
        }
        return failed ? 1 : 0
    }
}
