/// What one client connection saw of its TLS handshake: OpenSSL's verdict on
/// the server's certificate, and whether a failure without a verdict may be
/// libwebsockets losing the connection to another context's creation (see
/// ``TLSContextEpoch``), in which case connecting again is safe: nothing was
/// sent. Service thread only; a value the tests drive with their own epochs.
struct TLSHandshakeRecord: Sendable {
    /// OpenSSL's reason for refusing the certificate, if it refused it.
    private(set) var certificateProblem: TLSCertificateProblem?
    /// Whether OpenSSL's certificate check ran at all.
    private(set) var certificateChecked = false
    private var epochAtConnect: TLSContextEpoch.Snapshot?

    /// The connection is being opened while the epoch is `epoch`.
    mutating func connecting(epoch: TLSContextEpoch.Snapshot) {
        epochAtConnect = epoch
    }

    /// OpenSSL judged a certificate: `problem` when it refused it.
    mutating func certificateVerified(_ problem: TLSCertificateProblem?) {
        certificateChecked = true
        if let problem { certificateProblem = problem }
    }

    /// A failed connect to a TLS URL, with the epoch now: true when no
    /// certificate was ever judged and a TLS-capable context was created
    /// since the connection started, or is being created now.
    func failureMayBeContextRace(usesTLS: Bool, epochNow: TLSContextEpoch.Snapshot) -> Bool {
        guard usesTLS, !certificateChecked, let epochAtConnect else { return false }
        return epochNow != epochAtConnect || epochNow.creationInProgress
    }
}
