import CLibWebSockets

/// Why the TLS library refused a server's certificate, as OpenSSL's
/// verification reported it during the handshake, in words a user can act on.
struct TLSCertificateProblem: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Self-signed, or issued by an authority this machine does not trust.
        case untrusted
        /// Valid, but for another host name (or address).
        case hostNameMismatch
        /// Expired or not yet valid.
        case outsideValidity
        /// Anything else OpenSSL refused.
        case other
    }

    var kind: Kind
    /// OpenSSL's own words (`X509_verify_cert_error_string`).
    var openSSLText: String

    /// From an OpenSSL `X509_V_ERR_*` code.
    init(verifyError code: Int32) {
        switch code {
        case 18, 19, 20, 21, 2, 27: kind = .untrusted // DEPTH_ZERO_SELF_SIGNED, SELF_SIGNED_IN_CHAIN, UNABLE_TO_GET_ISSUER(_LOCALLY), UNTRUSTED
        case 62, 64: kind = .hostNameMismatch         // HOSTNAME_MISMATCH, IP_ADDRESS_MISMATCH
        case 9, 10: kind = .outsideValidity           // CERT_NOT_YET_VALID, CERT_HAS_EXPIRED
        default: kind = .other
        }
        openSSLText = es_x509_verify_error_text(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// The public, typed reason.
    var rejection: CertificateRejection {
        switch kind {
        case .untrusted: .untrusted
        case .hostNameMismatch: .hostNameMismatch
        case .outsideValidity: .outsideValidity
        case .other: .other
        }
    }

    /// What to tell the user about `host`.
    func detail(host: String) -> String {
        switch kind {
        case .untrusted: return "the server's certificate is not trusted (\(openSSLText))"
        case .hostNameMismatch: return "the server's certificate is not valid for the host name '\(host)' (\(openSSLText))"
        case .outsideValidity: return "the server's certificate is outside its validity period (\(openSSLText))"
        case .other: return "the server's certificate was refused (\(openSSLText))"
        }
    }
}
