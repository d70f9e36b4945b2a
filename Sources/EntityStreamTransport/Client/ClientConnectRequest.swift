import CLibWebSockets

/// What a client session asks libwebsockets to open: a WebSocket (no
/// `method`) or an HTTP request, to a resolved address, with TLS settings.
/// Service thread only.
struct ClientConnectRequest {
    var url: TransportURL
    var address: String
    var sessionID: Int
    /// `GET`/`POST` for HTTP; nil for a WebSocket upgrade.
    var method: String?
    var allowSelfSignedCertificates: Bool
    var extraFlags: UInt32 = 0
    var retryPolicy: UnsafePointer<lws_retry_bo_t>?

    /// Starts the connection; false when libwebsockets refused at once (it
    /// may already have reported a connection error; no wsi remains).
    func open(context: OpaquePointer) -> Bool {
        var info = lws_client_connect_info()
        info.context = context
        info.port = Int32(url.port)
        var flags = extraFlags
        if url.usesTLS {
            flags |= LCCSCF_USE_SSL.rawValue
            if allowSelfSignedCertificates {
                flags |= LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue | LCCSCF_ALLOW_EXPIRED.rawValue
            }
        }
        info.ssl_connection = Int32(bitPattern: flags)
        info.ietf_version_or_minus_one = -1
        info.userdata = UnsafeMutableRawPointer(bitPattern: sessionID)
        info.retry_and_idle_policy = retryPolicy
        let created: OpaquePointer? = address.withCString { address in
            url.pathAndQuery.withCString { path in
                url.hostHeader.withCString { host in
                    "entitystream".withCString { protocolName in
                        info.address = address
                        info.path = path
                        info.host = host
                        info.origin = host
                        info.local_protocol_name = protocolName
                        guard let method else { return lws_client_connect_via_info(&info) }
                        return method.withCString { methodName in
                            info.method = methodName
                            info.protocol = protocolName
                            return lws_client_connect_via_info(&info)
                        }
                    }
                }
            }
        }
        return created != nil
    }
}
