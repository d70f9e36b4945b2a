import Synchronization

/// Counts the creations of TLS-capable libwebsockets contexts in this process.
///
/// libwebsockets 4.1 (Debian 12's) takes fresh OpenSSL ex-data indexes each
/// time a context with `LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT` is created
/// (4.3 takes them once). A client handshake in flight across such a
/// creation can no longer find its connection in the certificate check, and
/// fails before any certificate verdict. ``ServiceLoop`` calls
/// ``creationBegins()`` and ``creationEnded()`` around each such creation; a
/// client connection compares the epoch at its start with the epoch at its
/// failure (``TLSHandshakeRecord``) and is opened again if the race explains
/// it (``ClientConnectAttempts``).
enum TLSContextEpoch {
    /// How many creations had begun and how many had ended at one moment.
    struct Snapshot: Sendable, Hashable {
        var begun: UInt64
        var ended: UInt64

        /// A creation is under way (it may already have taken new indexes).
        var creationInProgress: Bool { begun != ended }
    }

    private static let begun = Atomic<UInt64>(0)
    private static let ended = Atomic<UInt64>(0)

    static var current: Snapshot {
        // `ended` first: a creation that ends between the two loads then reads as in progress.
        let ended = ended.load(ordering: .acquiring)
        return Snapshot(begun: begun.load(ordering: .acquiring), ended: ended)
    }

    static func creationBegins() { begun.wrappingAdd(1, ordering: .sequentiallyConsistent) }

    static func creationEnded() { ended.wrappingAdd(1, ordering: .sequentiallyConsistent) }
}
