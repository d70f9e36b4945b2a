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
    static func create(_ settings: StreamSettings, subjects: [String], in context: OpaquePointer) throws(JetStreamError) {
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
        guard status == NATS_OK else { throw .stream(name: settings.name, reason: JetStreamError.text(status, errorCode: errorCode)) }
    }

    /// The subjects of an existing stream.
    static func subjects(of name: String, in context: OpaquePointer) throws(JetStreamError) -> [String] {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(rawValue: 0)
        let status = js_GetStreamInfo(&info, context, name, nil, &errorCode)
        guard status == NATS_OK, let info else {
            let reason = status == NATS_NOT_FOUND ? "no such stream (create it with --create-stream on the publisher)"
                : JetStreamError.text(status, errorCode: errorCode)
            throw .stream(name: name, reason: reason)
        }
        defer { jsStreamInfo_Destroy(info) }
        guard let config = info.pointee.Config, let subjects = config.pointee.Subjects else { return [] }
        return (0..<Int(config.pointee.SubjectsLen)).compactMap { subjects[$0].map { String(cString: $0) } }
    }
}
