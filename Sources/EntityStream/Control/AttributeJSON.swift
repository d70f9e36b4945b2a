import EntityStreamCore
import EntityStreamModel

/// Attribute values and observations as JSON values, the way the JSON lines
/// write them (dates as epoch ms, non-finite numbers as null).
public enum AttributeJSON {
    public static func value(_ value: AttributeValue) -> JSONValue { value.jsonValue }

    /// Every field of `schema` in order, null when the observation does not carry it.
    public static func attributes(_ observation: Observation, fields: [Field]) -> JSONObject {
        var object = JSONObject()
        for (index, field) in fields.enumerated() { object.append(key: field.name, value: value(observation.attribute(index))) }
        return object
    }

    /// The observation as its id, receive time, and the Esri feature the
    /// output lines carry (``JSONWriter/appendFeature(_:fields:)``).
    public static func observation(_ observation: Observation, id: Int64, schema: Schema) -> JSONValue {
        var writer = JSONWriter(capacity: 256)
        writer.appendFeature(observation, fields: schema.fields)
        var object = JSONObject([("observation", .int(id)), ("received", .int(observation.receivedAt))])
        // appendFeature always writes valid JSON; parsing it back cannot fail.
        for member in (try? JSONParser.parse(writer.bytes))?.objectValue ?? JSONObject() {
            object.append(key: member.key, value: member.value)
        }
        return .object(object)
    }
}
