/// Re-indents compact JSON text (what ``JSONWriter`` writes) for people:
/// ArcGIS's `f=pjson`. Members and elements go on their own lines, indented
/// by two spaces per level, `"key" : value` as ArcGIS writes it; empty
/// objects and arrays stay `{}`/`[]`. Strings are copied byte for byte.
///
/// The input must be valid JSON (the output is then valid JSON of the same
/// value); anything else is reformatted without crashing. One linear pass. Stateless.
public enum JSONPrettyPrinter {
    public static func format(_ compact: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(compact.count + compact.count / 2)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0
        func newline() {
            out.append(UInt8(ascii: "\n"))
            for _ in 0..<max(depth, 0) { out.append(UInt8(ascii: " ")); out.append(UInt8(ascii: " ")) }
        }
        while index < compact.count {
            let byte = compact[index]
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index + 1 < compact.count, compact[index + 1] == close {
                    out.append(close)
                    index += 1
                } else {
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: " ")])
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                break
            default:
                out.append(byte)
            }
            index += 1
        }
        return out
    }
}
