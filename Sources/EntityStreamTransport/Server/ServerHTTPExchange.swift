import CLibWebSockets

/// One HTTP request/response on a server connection. Service thread only,
/// except that the responder task hands its response back through
/// ``ServiceLoop/execute(_:)``.
final class ServerHTTPExchange: @unchecked Sendable {
    let id: Int
    var request: HTTPServerRequest
    private(set) var response: HTTPServerResponse?
    private var headersSent = false
    private var bodyOffset = 0
    private let bodyLimit: Int
    private(set) var bodyTooLarge = false

    init(id: Int, request: HTTPServerRequest, bodyLimit: Int) {
        self.id = id
        self.request = request
        self.bodyLimit = bodyLimit
    }

    /// Appends a chunk of a POST body; false once the body exceeds the limit.
    func appendBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard request.body.count + chunk.count <= bodyLimit else {
            bodyTooLarge = true
            return false
        }
        request.body.append(contentsOf: chunk)
        return true
    }

    func respond(_ response: HTTPServerResponse) { self.response = response }

    /// HTTP_WRITEABLE: headers first, then the body in pieces, one `lws_write`
    /// each. Returns the callback's result (non-zero closes the connection).
    func writeNext(wsi: OpaquePointer) -> Int32 {
        guard let response else { return 0 }
        let pre = Int(es_lws_pre())
        if !headersSent {
            headersSent = true
            var buffer = [UInt8](repeating: 0, count: pre + 4096 + response.headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 })
            let failed = buffer.withUnsafeMutableBufferPointer { pointer -> Bool in
                let start = pointer.baseAddress! + pre
                var cursor: UnsafeMutablePointer<UInt8>? = start
                let end = pointer.baseAddress! + pointer.count
                if lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType,
                                               lws_filepos_t(response.body.count), &cursor, end) != 0 { return true }
                for field in response.headers {
                    let name = field.name.lowercased() + ":"
                    let value = Array(field.value.utf8)
                    let status = name.withCString { namePointer in
                        value.withUnsafeBufferPointer { valuePointer in
                            lws_add_http_header_by_name(wsi, UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                                                        valuePointer.baseAddress, Int32(valuePointer.count), &cursor, end)
                        }
                    }
                    if status != 0 { return true }
                }
                return lws_finalize_write_http_header(wsi, start, &cursor, end) != 0
            }
            if failed { return -1 }
            if response.body.isEmpty { return finishTransaction(wsi: wsi) }
            lws_callback_on_writable(wsi)
            return 0
        }
        let pieceSize = 64 * 1024
        let end = min(bodyOffset + pieceSize, response.body.count)
        var piece = [UInt8](repeating: 0, count: pre)
        piece.append(contentsOf: response.body[bodyOffset..<end])
        let isLast = end == response.body.count
        let written = piece.withUnsafeMutableBufferPointer { pointer in
            lws_write(wsi, pointer.baseAddress! + pre, end - bodyOffset, isLast ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        if written < 0 { return -1 }
        bodyOffset = end
        if isLast { return finishTransaction(wsi: wsi) }
        lws_callback_on_writable(wsi)
        return 0
    }

    private func finishTransaction(wsi: OpaquePointer) -> Int32 {
        lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }
}
