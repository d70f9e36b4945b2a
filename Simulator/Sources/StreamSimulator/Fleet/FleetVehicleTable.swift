import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures

/// The static vehicle table a fleet service names in its description's
/// `relatedFeatures` (joined to observations by `vehiclename`): one row per
/// vehicle, no geometry.
///
/// Fields: `OBJECTID` (the vehicle number n), `vehiclename` ("TRUCK n"),
/// `depot` (string: `depots[(n − 1) % 4]`, i.e. North, South, East, West in
/// turn), `modelyear` (integer: `2012 + (7·n) % 12`). Deterministic in the
/// vehicle count alone.
public enum FleetVehicleTable {
    /// The depots, in the order vehicles are assigned to them.
    public static let depots = ["North", "South", "East", "West"]

    /// The fields (the object id first).
    public static let schema = Schema(fields: [
        Field(name: "OBJECTID", type: .objectID),
        Field(name: "vehiclename", type: .string),
        Field(name: "depot", type: .string),
        Field(name: "modelyear", type: .integer),
    ])

    /// The values of vehicle `number` (1-based), aligned to ``schema``.
    public static func row(number: Int) -> [AttributeValue] {
        [.int(Int64(number)), .string("TRUCK \(number)"), .string(depots[(number - 1) % depots.count]),
         .int(Int64(2012 + (7 * number) % 12))]
    }

    /// The table of a fleet of `vehicles` vehicles, named `name`.
    public static func table(name: String, vehicles: Int) -> FeatureTable {
        // The schema is fixed and valid and rows are well formed: the builder cannot refuse them.
        guard var builder = try? FeatureTableBuilder(name: name, schema: schema, objectIDFieldIndex: 0, assignsObjectIDs: false,
                                                     geometryType: .none, spatialReference: nil) else {
            preconditionFailure("the vehicle table's fixed schema is valid")
        }
        builder.reserveCapacity(vehicles)
        for number in 1...max(vehicles, 1) { try? builder.append(geometry: nil, values: row(number: number)) }
        return builder.build()
    }
}
