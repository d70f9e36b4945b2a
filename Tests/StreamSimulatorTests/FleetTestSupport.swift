import Foundation
import EntityStreamCore
import StreamSimulator
import EntityStreamModel

/// Helpers shared by the fleet tests: reading attributes by name and grouping by vehicle.
enum FleetTestSupport {
    static let schema = SnowplowFleet.schema

    static func double(_ observation: Observation, _ field: String) -> Double {
        guard let index = schema.index(ofField: field), let value = observation.attribute(index).doubleValue else {
            return .nan
        }
        return value
    }

    static func string(_ observation: Observation, _ field: String) -> String? {
        guard let index = schema.index(ofField: field), case .string(let value) = observation.attribute(index) else {
            return nil
        }
        return value
    }

    static func int(_ observation: Observation, _ field: String) -> Int64? {
        guard let index = schema.index(ofField: field), case .int(let value) = observation.attribute(index) else {
            return nil
        }
        return value
    }

    /// `count` observations of a fresh fleet.
    static func run(vehicles: Int = 50, seed: UInt64 = 7, rate: Double = 1, count: Int,
                    start: Int64 = 1_767_225_600_000) -> [Observation] {
        var fleet = SnowplowFleet(configuration: FleetConfiguration(vehicles: vehicles, seed: seed, ratePerVehicle: rate),
                                  startTime: start)
        return fleet.next(count: count)
    }

    /// Observations grouped by `vehiclename`, each track in emission order.
    static func tracks(_ observations: [Observation]) -> [String: [Observation]] {
        var result: [String: [Observation]] = [:]
        for observation in observations {
            result[string(observation, "vehiclename") ?? "", default: []].append(observation)
        }
        return result
    }

    /// Every (previous, current) pair of consecutive observations of one vehicle.
    static func consecutivePairs(_ observations: [Observation]) -> [(Observation, Observation)] {
        tracks(observations).values.flatMap { track in
            zip(track, track.dropFirst()).map { ($0, $1) }
        }
    }

    /// Manhattan distance in metres along meridians and parallels on the mean-radius sphere
    /// (the length of a path along the grid that never reverses on either axis).
    static func manhattanMeters(_ a: Point, _ b: Point) -> Double {
        let metersPerDegree = 6_371_008.8 * Double.pi / 180
        let meanLatitude = (a.y + b.y) / 2 * Double.pi / 180
        let north = abs(b.y - a.y) * metersPerDegree
        let east = abs(b.x - a.x) * metersPerDegree * cos(meanLatitude)
        return north + east
    }
}
