import CLibNATS
import Foundation

/// How `--create-stream` makes a stream: retention, replicas, maximum age,
/// storage and the duplicate window that makes resent and doubly ingested
/// observations count once.
public struct StreamSettings: Sendable, Hashable {
    public enum Retention: String, Sendable, Hashable, CaseIterable {
        case limits, interest, workqueue
    }

    public var name: String
    public var retention = Retention.limits
    public var replicas = 1
    /// Seconds; 0 keeps messages without an age limit.
    public var maximumAgeSeconds: Double = 0
    public var memoryStorage = false
    /// Seconds in which a repeated `Nats-Msg-Id` is recognised (JetStream's default is 120).
    public var duplicateWindowSeconds: Double = 120

    public init(name: String) { self.name = name }
}

/// Streams: made when asked, otherwise checked to exist.
enum Streams {
    /// Creates the stream taking `subjects` with `settings`, or updates its
    /// settings if it exists.
    /// A cluster still electing its JetStream leader, or still joining its
    /// nodes, answers with a timeout, no responders, "temporarily
    /// unavailable" (10008) or "no suitable peers" (10005): tried again for
    /// up to `patience` seconds.
    static func create(_ settings: StreamSettings, subjects: [String], in context: OpaquePointer,
                       patience: Double = 30) throws(JetStreamError) {
        do throws(CallFailure) {
            try retrying(patience: patience) { () throws(CallFailure) in try createOnce(settings, subjects: subjects, in: context) }
        } catch {
            throw .stream(name: settings.name, reason: JetStreamError.text(error.status, errorCode: error.code))
        }
    }

    /// Runs `call` until it succeeds, fails for good, or `patience` seconds have passed
    /// with transient failures only (a cluster electing a leader). Blocking.
    static func retrying<Value>(patience: Double, _ call: () throws(CallFailure) -> Value) throws(CallFailure) -> Value {
        let deadline = Date(timeIntervalSinceNow: patience)
        while true {
            do throws(CallFailure) {
                return try call()
            } catch {
                guard error.isTransient, Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// A failed JetStream API call: the client's status and the server's error code.
    struct CallFailure: Error {
        let status: natsStatus
        let code: jsErrCode
        /// 10008: JetStream temporarily unavailable (no meta leader yet); 10005: no suitable
        /// peers for placement (a cluster whose nodes have not all joined yet; replicas that
        /// no cluster can place fail the same way once the patience is spent).
        var isTransient: Bool {
            status == NATS_TIMEOUT || status == NATS_NO_RESPONDERS || code.rawValue == 10008 || code.rawValue == 10005
        }
    }

    private static func createOnce(_ settings: StreamSettings, subjects: [String], in context: OpaquePointer) throws(CallFailure) {
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        var subjectCopies: [UnsafePointer<CChar>?] = subjects.map { UnsafePointer(strdup($0)) }
        defer { subjectCopies.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        let name = strdup(settings.name)
        defer { free(name) }
        config.Name = UnsafePointer(name)
        config.SubjectsLen = Int32(subjects.count)
        config.Storage = settings.memoryStorage ? js_MemoryStorage : js_FileStorage
        config.Replicas = Int64(settings.replicas)
        config.MaxAge = Int64(settings.maximumAgeSeconds * 1e9)
        config.Duplicates = Int64(settings.duplicateWindowSeconds * 1e9)
        switch settings.retention {
        case .limits: config.Retention = js_LimitsPolicy
        case .interest: config.Retention = js_InterestPolicy
        case .workqueue: config.Retention = js_WorkQueuePolicy
        }
        var errorCode = jsErrCode(rawValue: 0)
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var status = subjectCopies.withUnsafeMutableBufferPointer { buffer -> natsStatus in
            config.Subjects = buffer.baseAddress
            return js_AddStream(&info, context, &config, nil, &errorCode)
        }
        if status != NATS_OK && errorCode.rawValue == 10058 {
            // The name is in use with other settings: take the new ones.
            errorCode = jsErrCode(rawValue: 0)
            status = subjectCopies.withUnsafeMutableBufferPointer { buffer -> natsStatus in
                config.Subjects = buffer.baseAddress
                return js_UpdateStream(&info, context, &config, nil, &errorCode)
            }
        }
        if let info { jsStreamInfo_Destroy(info) }
        guard status == NATS_OK else { throw CallFailure(status: status, code: errorCode) }
    }

    /// What a consumer needs to know of an existing stream.
    struct Description {
        /// The subjects it takes.
        var subjects: [String]
        /// The sequence of its last message (0 when it is empty).
        var lastSequence: UInt64
    }

    /// The subjects and last sequence of an existing stream.
    static func describe(_ name: String, in context: OpaquePointer, patience: Double = 30) throws(JetStreamError) -> Description {
        let info: UnsafeMutablePointer<jsStreamInfo>
        do throws(CallFailure) {
            info = try retrying(patience: patience) { () throws(CallFailure) in
                var info: UnsafeMutablePointer<jsStreamInfo>?
                var errorCode = jsErrCode(rawValue: 0)
                let status = js_GetStreamInfo(&info, context, name, nil, &errorCode)
                guard status == NATS_OK, let info else { throw CallFailure(status: status, code: errorCode) }
                return info
            }
        } catch {
            let reason = error.status == NATS_NOT_FOUND ? "no such stream (create it with --create-stream on the publisher)"
                : JetStreamError.text(error.status, errorCode: error.code)
            throw .stream(name: name, reason: reason)
        }
        defer { jsStreamInfo_Destroy(info) }
        var subjects: [String] = []
        if let config = info.pointee.Config, let list = config.pointee.Subjects {
            subjects = (0..<Int(config.pointee.SubjectsLen)).compactMap { list[$0].map { String(cString: $0) } }
        }
        return Description(subjects: subjects, lastSequence: info.pointee.State.LastSeq)
    }
}
