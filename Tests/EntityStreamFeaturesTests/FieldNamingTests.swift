import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// CSV headers become field names a REST client can name (outFields, where clauses), the header kept as the alias.
@Suite("Field names made from CSV headers", .bounded)
struct FieldNamingTests {
    @Test(arguments: [
        ("Population Estimate, 2013", "Population_Estimate_2013"),
        ("PCT_DIABETES_ADULTS13", "PCT_DIABETES_ADULTS13"),
        ("2013 estimate", "F_2013_estimate"),
        ("  (%) ", "F"),
        ("State Name", "State_Name"),
        ("a--b", "a_b"),
        ("Über", "ber"),
    ])
    func validNames(header: String, expected: String) {
        #expect(FieldNaming.validName(header) == expected)
        #expect(FieldNaming.isValid(FieldNaming.validName(header)))
    }

    @Test func namesAreUniqueAndBounded() {
        let names = FieldNaming.validNames(["State Name", "State_Name", "state name", String(repeating: "x", count: 80), String(repeating: "x", count: 90)])
        #expect(names[0] == "State_Name" && names[1] == "State_Name_2" && names[2] == "state_name_3")
        #expect(names.allSatisfy { FieldNaming.isValid($0) && $0.utf8.count <= FieldNaming.maximumLength })
        #expect(Set(names.map { $0.lowercased() }).count == names.count)
    }

    /// A CSV loaded with such a header: the field has the valid name and the header as alias, and a mapping may name either.
    @Test func csvColumnsKeepTheirHeaderAsAlias() throws {
        let csv = "id,\"Population Estimate, 2013\",lon,lat\n1,54792,-86.6,32.5\n"
        let table = try FeatureFile.load(bytes: Array(csv.utf8), fileName: "counties.csv")
        let field = try #require(table.schema.fields.first { $0.alias == "Population Estimate, 2013" })
        #expect(field.name == "Population_Estimate_2013")
        #expect(table.report.notes.contains { $0.contains("'Population Estimate, 2013' is field Population_Estimate_2013") })
        var options = FeatureLoadOptions()
        options.mapping = FeatureColumnMapping(x: "lon", y: "lat", track: "Population Estimate, 2013")
        let mapped = try FeatureFile.load(bytes: Array(csv.utf8), fileName: "counties.csv", options: options)
        #expect(mapped.schema.trackIDField?.name == "Population_Estimate_2013")
    }
}
