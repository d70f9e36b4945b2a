import Foundation

/// The project's shared real data (`../shared/data` next to the package, or
/// `$ENTITYSTREAM_SHARED_DATA`), for tests and benchmarks. It is not part of
/// the project: tests that use it skip cleanly when a file is absent.
public enum SharedData {
    public static let directory: String = {
        if let path = ProcessInfo.processInfo.environment["ENTITYSTREAM_SHARED_DATA"], !path.isEmpty {
            return path
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()   // EntityStreamTestSupport
            .deletingLastPathComponent()   // Sources
            .deletingLastPathComponent()   // package root
        return packageRoot.appendingPathComponent("../shared/data").standardizedFileURL.path
    }()

    /// The full path of `relative` inside the shared data folder.
    public static func path(_ relative: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(relative).path
    }

    /// True when the shared file exists and is readable.
    public static func has(_ relative: String) -> Bool {
        FileManager.default.isReadableFile(atPath: path(relative))
    }

    /// The shared file's text (UTF-8).
    public static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    /// Esri's AIS replay file: 8,400 Esri JSON lines, 14 vessels.
    public static let ais = "tracks/AIS_MarineCadastre_SelectedVessels_CustomDataSource.json"
    /// A day of Austin bus positions (CSV).
    public static let capMetro = "tracks/capmetro_vehicle_positions_2016-11-24.csv"
    /// One Liverpool bus route (CSV).
    public static let liverpool = "tracks/liverpool_bus_route14_outbound_2026-01-26.csv"
    /// Shown when a test skips because data is absent.
    public static let absentComment = "shared data absent: set ENTITYSTREAM_SHARED_DATA or provide ../shared/data"
}
