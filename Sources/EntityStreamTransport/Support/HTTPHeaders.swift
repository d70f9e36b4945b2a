import CLibWebSockets

/// HTTP header fields, case-insensitive by name, in arrival order.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field] = []

    public init() {}
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name: name, value: value) }
    }

    public mutating func add(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// The first value of header `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

/// Reads what libwebsockets parsed of a request or response head.
/// Service thread only, while the header table is still attached.
enum HeaderTable {
    /// Every known header libwebsockets parsed, plus those of `custom`
    /// (names libwebsockets does not know, looked up by name) that came.
    static func headers(of wsi: OpaquePointer, custom: [String] = []) -> HTTPHeaders {
        var headers = HTTPHeaders()
        let last = Int(_WSI_TOKEN_CLIENT_SENT_PROTOCOLS.rawValue)
        for raw in 0..<last {
            let token = lws_token_indexes(rawValue: UInt32(raw))
            if token == WSI_TOKEN_GET_URI || token == WSI_TOKEN_POST_URI || token == WSI_TOKEN_HTTP_URI_ARGS { continue }
            guard let namePointer = lws_token_to_string(token) else { continue }
            var name = String(cString: namePointer)
            guard name.hasSuffix(":") else { continue }
            name.removeLast()
            if let value = copy(wsi, token) { headers.add(name: name, value: value) }
        }
        for name in custom {
            if let value = customValue(wsi, name: name) { headers.add(name: name, value: value) }
        }
        return headers
    }

    /// The value of a header libwebsockets keeps by name (it lowercases
    /// names as it parses them), or nil when absent.
    static func customValue(_ wsi: OpaquePointer, name: String) -> String? {
        let key = name.lowercased() + ":"
        let keyLength = Int32(key.utf8.count)
        let length = Int(key.withCString { lws_hdr_custom_length(wsi, $0, keyLength) })
        guard length >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let copied = key.withCString { lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), $0, keyLength) }
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One header's value, or nil when absent.
    static func copy(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The URL query of a server request as decoded `name=value` pairs, in order.
    static func queryItems(of wsi: OpaquePointer) -> [(String, String)] {
        var items: [(String, String)] = []
        var index: Int32 = 0
        while true {
            let length = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            if length <= 0 { break }
            var buffer = [CChar](repeating: 0, count: length + 1)
            guard lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 else { break }
            let text = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let equals = text.firstIndex(of: "=") {
                items.append((String(text[..<equals]), String(text[text.index(after: equals)...])))
            } else {
                items.append((text, ""))
            }
            index += 1
        }
        return items
    }
}
