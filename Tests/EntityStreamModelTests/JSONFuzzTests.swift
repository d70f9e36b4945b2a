import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// Random bytes never make the readers trap, and validate/parse/decode agree on validity.
@Suite(.bounded(.compute, limit: FuzzRounds.timeLimit))
struct JSONFuzzTests {
    /// Random byte strings (biased towards JSON punctuation) and random splices of valid documents.
    /// Few of these are near-valid, so the rounds stay 20,000: at 6,000 a validator that lets one
    /// more level nest than the parser went unnoticed.
    @Test func randomBytesNeverTrap() async throws {
        await FuzzRounds.run("JSON random bytes", fixed: [0xF022]) { seed in
            var rng = SplitMix64(seed: seed)
            var generator = JSONDocumentGenerator(seed: seed &+ 1)
            let alphabet = Array(#"{}[]":,-+.eE0123456789tfnrulsa\ "#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF0, 0xFF, 0x0A]
            var decoder = EsriFeatureDecoder(schema: Schema(fields: [Field(name: "a", type: .integer)]))
            for round in 0..<20_000 {
                var bytes: [UInt8]
                switch round % 3 {
                case 0:
                    bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                case 1:
                    bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
                default:
                    let document = generator.document()
                    let cut = Int.random(in: 0...document.count, using: &rng)
                    bytes = Array(document[..<cut]) + generator.mutate(generator.document())
                }
                let parsed = try? JSONParser.parse(bytes)
                let valid = (try? JSONParser.validate(bytes)) != nil
                #expect((parsed != nil) == valid, "\(FuzzRounds.label(seed)) round \(round)")
                var output: [StreamMessage] = []
                let decoded = (try? decoder.decode(bytes, receivedAt: 0, into: &output)) != nil
                // Anything the decoder accepts is valid JSON.
                if decoded { #expect(valid, "\(FuzzRounds.label(seed)) round \(round)") }
            }
        }
    }

    /// Features with random edits: the decoder never traps, and on failure leaves output untouched.
    /// 6,000 copies of the template with one to three edits each (about 12,000 edits over the
    /// generator's ten kinds); a decoder that keeps partial output fails about a thousand of them.
    @Test func mutatedFeaturesNeverTrap() async {
        await FuzzRounds.run("JSON mutated features", fixed: [0xFEA7]) { seed in
            var generator = JSONDocumentGenerator(seed: seed)
            let template = Array(#"[{"geometry":{"x":-122.5,"y":47.1,"z":3,"spatialReference":{"wkid":4326}},"attributes":{"MMSI":"367","SOG":1.5,"n":7,"b":true,"q":null}},{"type":"delete","feature":{"attributes":{"MMSI":"1"}}},{"filter":{"where":"1=1"},"error":null}]"#.utf8)
            var decoder = EsriFeatureDecoder(schema: Schema(fields: [Field(name: "MMSI", type: .string)]))
            let sentinel = StreamMessage.filterReply(JSONObject([("sentinel", .bool(true))]))
            for _ in 0..<6000 {
                var bytes = template
                for _ in 0..<Int.random(in: 1...3, using: &generator.rng) { bytes = generator.mutate(bytes) }
                var output: [StreamMessage] = [sentinel]
                let schemaBefore = decoder.schema
                do throws(JSONError) {
                    try decoder.decode(bytes, receivedAt: 0, into: &output)
                    #expect(output.first == sentinel, "\(FuzzRounds.label(seed))")
                } catch {
                    #expect(output == [sentinel], "\(FuzzRounds.label(seed))")
                    #expect(decoder.schema == schemaBefore, "\(FuzzRounds.label(seed))")
                    #expect(error.offset >= 0 && error.offset <= bytes.count, "\(FuzzRounds.label(seed))")
                }
            }
        }
    }
}
