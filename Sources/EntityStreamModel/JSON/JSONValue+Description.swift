extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text, e.g. `2` or `{"code":498}`: what error
    /// messages show of a value that was not what they expected.
    public var description: String {
        var writer = JSONWriter(capacity: 64)
        writer.append(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
