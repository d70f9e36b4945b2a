import EntityStreamCore
import EntityStreamModel
import EntityStreamTestSupport
@testable import StreamSimulator
import Testing

@Suite("Large fleets", .bounded)
struct LargeFleetTests {
    /// A subscriber's cursor over a fleet of 100,000 vehicles yields 300,000 reports — three
    /// rounds, round robin, times never decreasing — at a cost per report that does not grow with
    /// the fleet: each report used to copy every vehicle (the cursor advanced a copy of the fleet),
    /// so a fleet of 100,000 at 1/s delivered about 48 reports a second and this test could not
    /// finish within its time limit.
    @Test func largeFleetCursorKeepsItsCostPerReport() throws {
        let vehicles = 100_000
        let now: Int64 = 1_795_254_572_989
        var cursor = FeedCursor(feed: .fleet(FleetConfiguration(vehicles: vehicles, seed: 3, ratePerVehicle: 1)),
                                pacing: SimulatorPacing(), serverStart: now, now: now)
        var last = Int64.min
        var seen = 0
        var outOfOrder = 0
        var outOfTurn = 0
        var previous: Int?
        for _ in 0..<(3 * vehicles) {
            guard let (due, item) = cursor.next(), case .observation(let observation) = item, let due else { break }
            seen += 1
            if due < last { outOfOrder += 1 }
            last = due
            // Round robin: TRUCK n is followed by TRUCK n + 1, and TRUCK 100000 by TRUCK 1.
            guard case .string(let name) = observation.attribute(0), let number = Int(name.dropFirst("TRUCK ".count)) else {
                outOfTurn += 1
                continue
            }
            if let previous, number != previous % vehicles + 1 { outOfTurn += 1 }
            previous = number
        }
        #expect(seen == 3 * vehicles)
        #expect(outOfOrder == 0)
        #expect(outOfTurn == 0)
        // Three rounds of a 1 s period take 3 s of fleet time.
        #expect(last - now >= 2_000 && last - now <= 4_000, "\(last - now) ms")
    }
}
