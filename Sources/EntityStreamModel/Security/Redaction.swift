/// Removes credentials from any text before it is printed, logged or
/// stored: the one redaction every program and module uses.
///
/// ``redact(_:secrets:)`` replaces with ``mask``:
/// - the value of every credential query parameter (``credentialNames``,
///   ASCII case-insensitive: `token=…`, `access_token=…`, `password=…`)
///   wherever it stands in the text — a URL, an error message quoting one,
///   an HTTP body excerpt — up to the next `&`, `#`, whitespace, quote,
///   `<`, `>`, `)`, `,` or `;`;
/// - the string value of every JSON member with such a name
///   (`"token":"…"`, whitespace allowed around the colon);
/// - every occurrence of each given secret of at least
///   ``minimumLiteralLength`` bytes, as it is and percent-encoded (a token
///   that reached a text some other way);
/// - the password of a URL's user information (`http://user:password@host`
///   becomes `http://user:***@host`), wherever a URL stands in the text.
///
/// The result says where a credential was without saying what it was.
/// Linear in the text's length per secret. Stateless and thread-safe.
public enum Redaction {
    /// What a credential is replaced with.
    public static let mask = "***"
    /// Parameter and member names whose values are credentials.
    public static let credentialNames: [String] = ["token", "access_token", "password"]
    /// Shorter secrets are not replaced literally (they would mangle
    /// ordinary words); their parameters still are.
    public static let minimumLiteralLength = 4

    /// `text` with every credential masked (see the type's contract).
    public static func redact(_ text: String, secrets: [String?] = []) -> String {
        var bytes = Array(text.utf8)
        var changed = false
        for secret in secrets {
            guard let secret, secret.utf8.count >= minimumLiteralLength else { continue }
            changed = replaceAll(Array(secret.utf8), in: &bytes) || changed
            let encoded = Array(percentEncoded(secret).utf8)
            if encoded != Array(secret.utf8) { changed = replaceAll(encoded, in: &bytes) || changed }
        }
        changed = maskParameters(&bytes) || changed
        changed = maskJSONMembers(&bytes) || changed
        changed = maskUserInfoPasswords(&bytes) || changed
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// `url` with every credential query value masked (a URL is a text like any other).
    public static func redactedURL(_ url: String) -> String { redact(url) }

    /// `value` with every object member named like a credential removed, at
    /// any depth, and every string redacted: what may be stored (a service
    /// description in a recording keeps its `streamUrls` but not their token).
    public static func withoutCredentials(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text):
            return .string(redact(text))
        case .array(let elements):
            return .array(elements.map(withoutCredentials))
        case .object(let object):
            var kept = JSONObject()
            for member in object where !isCredentialName(member.key) {
                kept.append(key: member.key, value: withoutCredentials(member.value))
            }
            return .object(kept)
        case .null, .bool, .int, .double:
            return value
        }
    }

    /// True for a member or parameter name whose value is a credential (ASCII case-insensitive).
    public static func isCredentialName(_ name: String) -> Bool {
        let folded = Array(name.utf8).map(lowercased)
        return names.contains(folded)
    }

    /// A copy of a text being built with ranges of it replaced by the mask,
    /// in order; the text is copied only once something is masked.
    private struct Masking {
        private var output: [UInt8] = []
        /// Where the next unmasked run starts (the end of the last range masked).
        private(set) var copied = 0
        private(set) var changed = false

        /// Replaces `range` of `bytes` (after every range replaced so far) with the mask.
        mutating func mask(_ range: Range<Int>, of bytes: [UInt8]) {
            if !changed { output.reserveCapacity(bytes.count) }
            output.append(contentsOf: bytes[copied..<range.lowerBound])
            output.append(contentsOf: maskBytes)
            copied = range.upperBound
            changed = true
        }

        /// Puts the masked text in `bytes`; false when nothing was masked.
        mutating func finish(_ bytes: inout [UInt8]) -> Bool {
            guard changed else { return false }
            output.append(contentsOf: bytes[copied...])
            bytes = output
            return true
        }
    }

    // MARK: Parameters (`token=value`)

    private static let maskBytes = Array(mask.utf8)
    private static let names: [[UInt8]] = credentialNames.map { Array($0.utf8) }

    private static func isValueEnd(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
             UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ")"), UInt8(ascii: ","),
             UInt8(ascii: ";"), UInt8(ascii: "\\"):
            return true
        default:
            return false
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// The credential name ending just before `index` (an `=` or `"`), when it starts a word.
    private static func credentialName(endingAt end: Int, in bytes: [UInt8]) -> Bool {
        for name in names where name.count <= end {
            let start = end - name.count
            var matches = true
            for k in 0..<name.count where lowercased(bytes[start + k]) != name[k] {
                matches = false
                break
            }
            if matches && (start == 0 || !isNameByte(bytes[start - 1])) { return true }
        }
        return false
    }

    private static func maskParameters(_ bytes: inout [UInt8]) -> Bool {
        var masking = Masking()
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "="), credentialName(endingAt: index, in: bytes) {
                var end = index + 1
                while end < bytes.count, !isValueEnd(bytes[end]) { end += 1 }
                if end > index + 1 && bytes[(index + 1)..<end].elementsEqual(maskBytes) == false {
                    masking.mask((index + 1)..<end, of: bytes)
                }
                index = end
                continue
            }
            index += 1
        }
        return masking.finish(&bytes)
    }

    // MARK: JSON members (`"token": "value"`)

    private static func maskJSONMembers(_ bytes: inout [UInt8]) -> Bool {
        var masking = Masking()
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\""), index > 0, credentialName(endingAt: index, in: bytes),
                  index - 1 >= 0 else {
                index += 1
                continue
            }
            // `"name"` must be a whole key: a quote right before the name.
            var nameStart = index
            while nameStart > 0, isNameByte(bytes[nameStart - 1]) { nameStart -= 1 }
            guard nameStart > 0, bytes[nameStart - 1] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            var cursor = index + 1
            while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else {
                index += 1
                continue
            }
            cursor += 1
            while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") else {
                index = cursor
                continue
            }
            let valueStart = cursor + 1
            var end = valueStart
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            end = min(end, bytes.count)
            if !bytes[valueStart..<end].elementsEqual(maskBytes) { masking.mask(valueStart..<end, of: bytes) }
            index = end
        }
        return masking.finish(&bytes)
    }

    // MARK: User information (`scheme://user:password@host`)

    /// Bytes that end a URL's authority (user information, host, port).
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"),
             UInt8(ascii: "\r"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"):
            return true
        default:
            return false
        }
    }

    private static func maskUserInfoPasswords(_ bytes: inout [UInt8]) -> Bool {
        var masking = Masking()
        var index = 0
        while index + 3 <= bytes.count {
            guard bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else {
                index += 1
                continue
            }
            // The authority runs to the first '/', '?', '#' or space; its user information to its last '@'.
            let start = index + 3
            var end = start
            var at: Int?
            while end < bytes.count, !endsAuthority(bytes[end]) {
                if bytes[end] == UInt8(ascii: "@") { at = end }
                end += 1
            }
            if let at, let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":")),
               !bytes[(colon + 1)..<at].elementsEqual(maskBytes) {
                masking.mask((colon + 1)..<at, of: bytes)
            }
            index = end
        }
        return masking.finish(&bytes)
    }

    // MARK: Literal secrets

    /// Replaces every occurrence of `needle` (non-empty) in `bytes` with the mask.
    private static func replaceAll(_ needle: [UInt8], in bytes: inout [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        // Knuth–Morris–Pratt: linear whatever the secret and the text.
        var failure = [Int](repeating: 0, count: needle.count)
        var k = 0
        for i in 1..<max(1, needle.count) {
            while k > 0 && needle[i] != needle[k] { k = failure[k - 1] }
            if needle[i] == needle[k] { k += 1 }
            failure[i] = k
        }
        var masking = Masking()
        var matched = 0
        for (index, byte) in bytes.enumerated() {
            while matched > 0 && byte != needle[matched] { matched = failure[matched - 1] }
            if byte == needle[matched] { matched += 1 }
            if matched == needle.count {
                let start = index + 1 - needle.count
                if start >= masking.copied { masking.mask(start..<(index + 1), of: bytes) }
                matched = 0
            }
        }
        return masking.finish(&bytes)
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters (as query values are sent).
    private static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%"
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 15)]))
            }
        }
        return result
    }
}
