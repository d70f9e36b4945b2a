import EntityStreamTestSupport
import Foundation
@testable import EntityStreamCore
@testable import EntityStreamModel

enum JSONTestData {
    static var aisRecording: URL { URL(fileURLWithPath: SharedData.path(SharedData.ais)) }
    static var aisRecordingExists: Bool { SharedData.has(SharedData.ais) }
}

/// Runs the decoder over a String message.
func jsonTestDecode(_ text: String, decoder: inout EsriFeatureDecoder, receivedAt: Int64 = 42) throws(JSONError) -> [StreamMessage] {
    var output: [StreamMessage] = []
    try decoder.decode(Array(text.utf8), receivedAt: receivedAt, into: &output)
    return output
}

/// Parses with Foundation's JSONSerialization (fragments allowed); nil when it rejects the text.
func jsonFoundationParse(_ bytes: [UInt8]) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
}

/// Why a JSONSerialization result does not equal a JSONValue (nil when they agree).
///
/// Numbers: NSNumber bools (objCType "c") must be `.bool`; integer NSNumbers must
/// equal `.int` exactly (or, for UInt64 beyond Int64, the `.double` we produce
/// must equal `Double(uint64)`); double NSNumbers must be bit-identical to
/// `.double`. Integers beyond 64 bits come back from Foundation as
/// NSDecimalNumber, whose `doubleValue` is not always correctly rounded, so
/// those are compared to within 2 ulps. Strings compare by UTF-8 bytes (not by
/// Swift's canonical equivalence). Objects: Foundation keeps the last of
/// duplicate keys, so key sets and last-wins values are compared.
func jsonFoundationMismatch(_ foundation: Any, _ value: JSONValue, path: String = "$") -> String? {
    switch value {
    case .null:
        return foundation is NSNull ? nil : "\(path): expected null, Foundation has \(foundation)"
    case .bool(let b):
        guard let n = foundation as? NSNumber, String(cString: n.objCType) == "c" else { return "\(path): expected bool, Foundation has \(foundation)" }
        return n.boolValue == b ? nil : "\(path): bool \(b) vs \(n)"
    case .int(let i):
        guard let n = foundation as? NSNumber else { return "\(path): expected int \(i), Foundation has \(foundation)" }
        if let decimal = n as? NSDecimalNumber {
            // Foundation uses NSDecimalNumber for some in-range values (e.g. Int64.min).
            return decimal.decimalValue == Decimal(i) ? nil : "\(path): int \(i) vs decimal \(decimal)"
        }
        let type = String(cString: n.objCType)
        guard ["i", "q", "l", "s", "c"].contains(type) || (type == "Q" && n.uint64Value <= UInt64(Int64.max)) else {
            return "\(path): int \(i) vs Foundation \(n) (\(type))"
        }
        return n.int64Value == i ? nil : "\(path): int \(i) vs \(n.int64Value)"
    case .double(let d):
        guard let n = foundation as? NSNumber else { return "\(path): expected double \(d), Foundation has \(foundation)" }
        let type = String(cString: n.objCType)
        if let decimal = n as? NSDecimalNumber {
            // Foundation keeps many numbers as NSDecimalNumber (exact to 38 digits)
            // and its `doubleValue` is NOT correctly rounded (often several ulps
            // off). So compare with the correctly rounded conversion of the exact
            // decimal Foundation holds. When the text had more than 38 significant
            // digits the decimal itself is rounded, so allow 1 ulp then.
            let exactText = decimal.description
            guard let rounded = Double(exactText) else { return "\(path): decimal \(exactText) not convertible" }
            if rounded.bitPattern == d.bitPattern { return nil }
            let digitCount = exactText.filter(\.isNumber).drop(while: { $0 == "0" }).count
            if digitCount >= 38, abs(rounded - d) <= d.ulp { return nil }
            return "\(path): double \(d) vs decimal \(exactText) (correctly rounded \(rounded))"
        }
        if type == "Q" { return Double(n.uint64Value) == d ? nil : "\(path): double \(d) vs UInt64 \(n.uint64Value)" }
        if type == "d" || type == "f" {
            return n.doubleValue.bitPattern == d.bitPattern ? nil : "\(path): double \(d) (\(d.bitPattern)) vs \(n.doubleValue) (\(n.doubleValue.bitPattern))"
        }
        return "\(path): double \(d) vs Foundation \(n) (\(type))"
    case .string(let s):
        guard let f = foundation as? String else { return "\(path): expected string, Foundation has \(foundation)" }
        return jsonFoundationStringMismatch(f, s).map { "\(path): \($0)" }
    case .array(let elements):
        guard let f = foundation as? [Any] else { return "\(path): expected array, Foundation has \(foundation)" }
        guard f.count == elements.count else { return "\(path): array count \(elements.count) vs \(f.count)" }
        for (index, element) in elements.enumerated() {
            if let problem = jsonFoundationMismatch(f[index], element, path: "\(path)[\(index)]") { return problem }
        }
        return nil
    case .object(let object):
        guard let f = foundation as? [String: Any] else { return "\(path): expected object, Foundation has \(foundation)" }
        // Keys compared with Foundation's U+FEFF loss undone (see jsonFoundationStringMismatch).
        let theirsByKey = Dictionary(f.map { (jsonWithoutBOM($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        let ourKeys = Set(object.keys)
        guard Set(ourKeys.map(jsonWithoutBOM)) == Set(theirsByKey.keys) else { return "\(path): keys \(ourKeys.sorted()) vs \(f.keys.sorted())" }
        for key in ourKeys {
            guard let ours = object[key], let theirs = theirsByKey[jsonWithoutBOM(key)] else { return "\(path): key \(key) missing" }
            if let problem = jsonFoundationMismatch(theirs, ours, path: "\(path).\(key)") { return problem }
        }
        return nil
    }
}

/// Foundation on Linux drops a U+FEFF (ZERO WIDTH NO-BREAK SPACE) that starts
/// a run of raw characters inside a string (e.g. after an escape): it decodes
/// such runs with a BOM-stripping UTF-8 conversion. RFC 8259 strings may hold
/// any scalar, so we keep it. This is the only string difference tolerated:
/// the texts must be byte-identical once U+FEFF is removed from both, and
/// ours must be the one that has more of them.
func jsonFoundationStringMismatch(_ foundation: String, _ ours: String) -> String? {
    if Array(foundation.utf8) == Array(ours.utf8) { return nil }
    let bomCount = { (s: String) in s.unicodeScalars.filter { $0 == "\u{FEFF}" }.count }
    if bomCount(ours) > bomCount(foundation), Array(jsonWithoutBOM(foundation).utf8) == Array(jsonWithoutBOM(ours).utf8) {
        return nil
    }
    return "string \(ours.debugDescription) vs \(foundation.debugDescription)"
}

func jsonWithoutBOM(_ s: String) -> String {
    String(String.UnicodeScalarView(s.unicodeScalars.filter { $0 != "\u{FEFF}" }))
}
