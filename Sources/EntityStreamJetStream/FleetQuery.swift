import CLibNATS
import EntityStream
import EntityStreamAnalyses
import EntityStreamCore
import Foundation
import EntityStreamStatistics
import EntityStreamModel

/// A statistics request asked of a whole fleet of consumers (the members
/// of `StatisticsControlCommand`: `statistics`, `groupBy`, `orderBy`,
/// `having`, `of`, `where`, `geometry`, `trackIds`, `timeExtent`,
/// `timeField`), and what each member answers: its partial accumulator.
/// Pure (parsing and merging); ``FleetResponder`` and ``FleetAsker`` are
/// the shells.
public struct FleetStatisticsRequest: Sendable {
    public let command: StatisticsControlCommand
    /// The request's JSON text, sent as it is to every member.
    public let text: [UInt8]

    public init(json: String) throws(FleetError) {
        guard let value = try? JSONParser.parse(Array(json.utf8)), let object = value.objectValue else {
            throw .notAnObject
        }
        do {
            let members = try CommandMembers(id: .null, command: "statistics", object: object, allowed: StatisticsControlCommand.members)
            command = try StatisticsControlCommand(members: members)
        } catch {
            throw .invalidRequest(error.message)
        }
        guard command.layerURL == nil else { throw .asksALayer }
        text = Array(json.utf8)
    }

    /// The subject a fleet group listens on.
    public static func subject(group: String) -> String { "entitystream.fleet.\(group)" }

    /// A member's answer for its store.
    public static func answer(_ text: [UInt8], contents: StoreContents, member: String, partition: TrackPartition?) async -> JSONValue {
        var reply = JSONObject([("member", .string(member))])
        if let partition { reply.append(key: "partition", value: .string(partition.description)) }
        reply.append(key: "observations", value: .int(Int64(contents.observationCount)))
        do {
            let request = try FleetStatisticsRequest(json: String(decoding: text, as: UTF8.self)).command
            if contents.observationCount == 0 {
                reply.append(key: "empty", value: .bool(true))
                return .object(reply)
            }
            let (accumulator, plan, _) = try await StoreStatisticsJob.accumulate(contents, request: request.request, rows: request.rows,
                                                                                 selection: request.selection)
            let schema = contents.schema
            let referenced = plan.referencedFieldIndices.map { index -> JSONValue in
                .object(JSONObject([("name", .string(schema.fields[index].name)), ("type", .string(schema.fields[index].type.esriName))]))
            }
            reply.append(key: "fields", value: .array(referenced))
            reply.append(key: "partial", value: accumulator.partial())
        } catch {
            reply.append(key: "error", value: .string("\(error)"))
        }
        return .object(reply)
    }

    /// The answers merged: one accumulator over the members' rows. Members
    /// that answered with an error are returned with it; empty members add nothing.
    public func merge(_ answers: [JSONObject]) throws(FleetError) -> (result: StatisticsResult, plan: StatisticsPlan)? {
        var fields: [Field] = []
        for answer in answers {
            guard let list = answer["fields"]?.arrayValue else { continue }
            for item in list {
                guard let name = item.objectValue?["name"]?.stringValue, let type = item.objectValue?["type"]?.stringValue else { continue }
                if !fields.contains(where: { Schema.fold($0.name) == Schema.fold(name) }) {
                    fields.append(Field(name: name, type: FieldType(esriName: type)))
                }
            }
        }
        let partials = answers.compactMap { $0["partial"] }
        guard !partials.isEmpty else { return nil }
        let plan: StatisticsPlan
        do { plan = try StatisticsPlan(command.request, schema: Schema(fields: fields)) } catch { throw .unanswerable(error.description) }
        var merged = plan.makeAccumulator()
        for partial in partials {
            do { merged.merge(try StatisticsAccumulator(plan: plan, partial: partial)) } catch { throw .invalidAnswer(String(describing: error)) }
        }
        return (merged.finish(), plan)
    }
}

/// A fleet request or answer that cannot be used, by what was wrong.
public enum FleetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request's text is not a JSON object.
    case notAnObject
    /// The request is not a valid `statistics` command (the command's reason).
    case invalidRequest(String)
    /// The request names a feature layer (`"layer"`), which the fleet does not answer.
    case asksALayer
    /// The members' schema cannot answer the request (the engine's reason).
    case unanswerable(String)
    /// A member's partial answer could not be merged (why).
    case invalidAnswer(String)

    public var description: String {
        switch self {
        case .notAnObject: return "the request is not a JSON object"
        case .invalidRequest(let reason), .unanswerable(let reason): return reason
        case .asksALayer: return "\"layer\" asks a feature layer, not the fleet"
        case .invalidAnswer(let reason): return "a member's answer: \(reason)"
        }
    }
}

/// A consumer's side of fleet queries: answers requests on
/// `entitystream.fleet.<group>` (core NATS request/reply) with its store's
/// partial statistics.
public final class FleetResponder: @unchecked Sendable {
    let connection: NATSConnection
    public let group: String
    let member: String
    let partition: TrackPartition?
    let store: EntityStore
    private var subscription: OpaquePointer?

    public init(connection: NATSConnection, group: String, member: String, partition: TrackPartition?, store: EntityStore) {
        self.connection = connection
        self.group = group
        self.member = member
        self.partition = partition
        self.store = store
    }

    deinit {
        stop()
    }

    /// Answers until ``stop()``. The subscription holds the responder (the
    /// client may deliver a request on its thread while stopping), so a
    /// started responder lives as long as the process.
    public func start() throws(JetStreamError) {
        var subscription: OpaquePointer?
        let status = natsConnection_Subscribe(&subscription, connection.handle, FleetStatisticsRequest.subject(group: group), { _, _, message, closure in
            guard let message, let closure else { return }
            let responder = Unmanaged<FleetResponder>.fromOpaque(closure).takeUnretainedValue()
            let reply = natsMsg_GetReply(message).map { String(cString: $0) }
            let length = Int(natsMsg_GetDataLength(message))
            var text = [UInt8](repeating: 0, count: length)
            if length > 0, let data = natsMsg_GetData(message) {
                text.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: length)) }
            }
            natsMsg_Destroy(message)
            guard let reply else { return }
            responder.respond(text, to: reply)
        }, Unmanaged.passRetained(self).toOpaque())
        guard status == NATS_OK, let subscription else { throw .request("cannot answer fleet queries: \(JetStreamError.text(status))") }
        self.subscription = subscription
    }

    public func stop() {
        if let subscription {
            natsSubscription_Unsubscribe(subscription)
            natsSubscription_Destroy(subscription)
            self.subscription = nil
        }
    }

    private func respond(_ text: [UInt8], to reply: String) {
        // The task keeps the responder (and its connection) until the answer is sent.
        Task {
            let contents = await self.store.snapshot().contents
            let answer = await FleetStatisticsRequest.answer(text, contents: contents, member: self.member, partition: self.partition)
            var writer = JSONWriter(capacity: 4096)
            writer.append(answer)
            self.connection.publish(writer.bytes, to: reply)
        }
    }
}

/// The asking side: sends a request to a fleet group and collects the
/// answers until `expected` members have answered or `seconds` have passed. Blocking.
public enum FleetAsker {
    public struct Answers: Sendable {
        public var answers: [JSONObject]
        /// Partitions `K/expected` that did not answer (members of a partitioned fleet name theirs;
        /// with unpartitioned members only the count tells).
        public var missingPartitions: [String]
        public var expected: Int
    }

    public static func ask(_ request: FleetStatisticsRequest, group: String, over connection: NATSConnection, expected: Int,
                           seconds: Double) throws(JetStreamError) -> Answers {
        var inbox: UnsafeMutablePointer<natsInbox>?
        guard natsInbox_Create(&inbox) == NATS_OK, let inbox else { throw .request("cannot make an inbox") }
        defer { natsInbox_Destroy(inbox) }
        let inboxName = String(cString: inbox)
        var subscription: OpaquePointer?
        var status = natsConnection_SubscribeSync(&subscription, connection.handle, inboxName)
        guard status == NATS_OK, let subscription else { throw .request(JetStreamError.text(status)) }
        defer { natsSubscription_Destroy(subscription) }
        status = request.text.withUnsafeBytes {
            natsConnection_PublishRequest(connection.handle, FleetStatisticsRequest.subject(group: group), inboxName, $0.baseAddress, Int32($0.count))
        }
        guard status == NATS_OK else { throw .request(JetStreamError.text(status)) }
        _ = natsConnection_Flush(connection.handle)
        let deadline = Date(timeIntervalSinceNow: seconds)
        var answers: [JSONObject] = []
        while answers.count < expected {
            let left = Int64(deadline.timeIntervalSinceNow * 1000)
            if left <= 0 { break }
            var message: OpaquePointer?
            guard natsSubscription_NextMsg(&message, subscription, left) == NATS_OK, let message else { break }
            let length = Int(natsMsg_GetDataLength(message))
            let bytes = [UInt8](UnsafeRawBufferPointer(start: natsMsg_GetData(message), count: length))
            natsMsg_Destroy(message)
            if let object = (try? JSONParser.parse(bytes))?.objectValue { answers.append(object) }
        }
        let named = Set(answers.compactMap { $0["partition"]?.stringValue })
        let missing = named.isEmpty && !answers.isEmpty ? []
            : (0..<expected).map { "\($0)/\(expected)" }.filter { !named.contains($0) }
        return Answers(answers: answers, missingPartitions: missing, expected: expected)
    }
}
