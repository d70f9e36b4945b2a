// swift-tools-version:6.1
import PackageDescription

// The module graph, bottom to top (ARCHITECTURE.md draws it). Every module is named
// EntityStream… so that none clashes with a module of the same name in a user's build.
// Pure modules do no file or network I/O: Model, Where, Core, Features; files are read in
// EntityStreamFiles, sockets in EntityStreamTransport.
let package = Package(
    name: "EntityStream",
    products: [
        // The stream library: connect, replay, the store, the bus, control commands.
        .library(name: "EntityStream", targets: [
            "EntityStream", "EntityStreamModel", "EntityStreamWhere", "EntityStreamCore", "EntityStreamFeatures",
            "EntityStreamFiles", "EntityStreamTransport", "EntityStreamProjection",
        ]),
        // The analyses above it (statistics, hot spots, identify, time-extent queries) and their engines.
        .library(name: "EntityStreamAnalyses", targets: [
            "EntityStreamAnalyses", "EntityStreamStatistics", "EntityStreamHotSpots", "EntityStreamRaster", "EntityStreamCommandLine",
        ]),
        .executable(name: "entitystream", targets: ["EntityStreamCLI"]),
        .executable(name: "stream-simulator", targets: ["StreamSimulatorCLI"]),
        .executable(name: "entitystream-bench", targets: ["Benchmarks"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        .systemLibrary(name: "CLibTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CLibGeoTIFF", providers: [.apt(["libgeotiff-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CLibNATS", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),

        // Foundations: locks and signals, coordinates (PROJ), sockets (libwebsockets).
        .target(name: "EntityStreamLocking"),
        .target(name: "EntityStreamProjection", dependencies: ["CPROJ", "EntityStreamLocking"]),
        .target(name: "EntityStreamTransport", dependencies: ["CLibWebSockets", "EntityStreamLocking"]),

        // Pure values and logic.
        .target(name: "EntityStreamModel", dependencies: ["EntityStreamLocking", "EntityStreamProjection"]),
        .target(name: "EntityStreamWhere", dependencies: ["EntityStreamModel"]),
        .target(name: "EntityStreamCore", dependencies: ["EntityStreamModel", "EntityStreamWhere", "EntityStreamProjection"]),
        .target(name: "EntityStreamFeatures", dependencies: ["EntityStreamCore", "EntityStreamWhere", "EntityStreamModel", "EntityStreamProjection"]),
        // File I/O: feature files, chunked scans, recordings, file descriptors.
        .target(name: "EntityStreamFiles", dependencies: ["EntityStreamFeatures", "EntityStreamCore", "EntityStreamModel"]),

        // The stream library: actors and shells.
        .target(name: "EntityStream", dependencies: [
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamWhere", "EntityStreamModel",
            "EntityStreamTransport", "EntityStreamLocking", "EntityStreamProjection",
        ]),

        // Analysis engines (pure) and the analyses above the stream library.
        .target(name: "EntityStreamStatistics", dependencies: ["EntityStreamFeatures", "EntityStreamWhere", "EntityStreamModel"]),
        .target(name: "EntityStreamHotSpots", dependencies: ["EntityStreamFeatures", "EntityStreamCore", "EntityStreamWhere", "EntityStreamModel", "EntityStreamProjection"]),
        .target(name: "EntityStreamRaster", dependencies: ["CLibTIFF", "CLibGeoTIFF", "EntityStreamProjection", "EntityStreamModel"]),
        .target(name: "EntityStreamCommandLine", dependencies: [
            "EntityStreamFiles", "EntityStreamFeatures", "EntityStreamCore", "EntityStreamWhere", "EntityStreamModel",
            "EntityStreamProjection", "EntityStreamLocking",
        ]),
        .target(name: "EntityStreamAnalyses", dependencies: [
            "EntityStream", "EntityStreamCommandLine", "EntityStreamStatistics", "EntityStreamHotSpots", "EntityStreamRaster",
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamWhere", "EntityStreamModel",
            "EntityStreamProjection", "EntityStreamTransport", "EntityStreamLocking",
        ]),
        .target(name: "EntityStreamJetStream", dependencies: [
            "CLibNATS", "EntityStream", "EntityStreamAnalyses", "EntityStreamCore", "EntityStreamModel", "EntityStreamStatistics", "EntityStreamLocking",
        ]),

        // Programs.
        .target(name: "StreamSimulator", dependencies: [
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamWhere", "EntityStreamModel",
            "EntityStreamTransport", "EntityStreamLocking", "EntityStreamStatistics", "EntityStreamHotSpots", "EntityStreamProjection",
        ], path: "Simulator/Sources/StreamSimulator"),
        .executableTarget(name: "EntityStreamCLI", dependencies: [
            "EntityStream", "EntityStreamAnalyses", "EntityStreamCommandLine", "EntityStreamJetStream", "StreamSimulator",
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamModel",
            "EntityStreamTransport", "EntityStreamLocking", "EntityStreamStatistics", "EntityStreamProjection",
        ]),
        .executableTarget(name: "StreamSimulatorCLI", dependencies: [
            "StreamSimulator", "EntityStreamCommandLine", "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamModel",
            "EntityStreamTransport", "EntityStreamLocking", "EntityStreamProjection",
        ], path: "Simulator/Sources/stream-simulator"),
        .executableTarget(name: "Benchmarks", dependencies: [
            "EntityStream", "EntityStreamAnalyses", "EntityStreamCommandLine", "EntityStreamTransport",
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamWhere", "EntityStreamModel",
            "EntityStreamStatistics", "EntityStreamHotSpots", "EntityStreamRaster", "EntityStreamProjection",
        ], exclude: ["Peers"]),

        // Tests.
        .target(name: "EntityStreamTestSupport", dependencies: [
            "EntityStream", "EntityStreamAnalyses", "EntityStreamCore", "EntityStreamModel", "EntityStreamTransport", "EntityStreamLocking",
        ]),
        .testTarget(name: "EntityStreamModelTests", dependencies: [
            "EntityStreamCore", "EntityStreamModel", "EntityStreamWhere", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamWhereTests", dependencies: [
            "EntityStreamCore", "EntityStreamModel", "EntityStreamWhere", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamCoreTests", dependencies: [
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamModel", "EntityStreamProjection",
            "EntityStreamWhere", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamFeaturesTests", dependencies: [
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamModel", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamFilesTests", dependencies: [
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamModel", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamTransportTests", dependencies: [
            "EntityStreamLocking", "EntityStreamTransport", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamProjectionTests", dependencies: [
            "EntityStreamModel", "EntityStreamProjection", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamRasterTests", dependencies: [
            "EntityStreamModel", "EntityStreamProjection", "EntityStreamRaster", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamStatisticsTests", dependencies: [
            "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamModel", "EntityStreamStatistics", "EntityStreamWhere",
            "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamHotSpotsTests", dependencies: [
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles", "EntityStreamHotSpots", "EntityStreamModel",
            "EntityStreamProjection", "EntityStreamWhere", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamTests", dependencies: [
            "EntityStream", "EntityStreamAnalyses", "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles",
            "EntityStreamHotSpots", "EntityStreamLocking", "EntityStreamModel", "EntityStreamTransport", "EntityStreamWhere",
            "EntityStreamTestSupport",
        ], exclude: ["Fixtures"]),
        .testTarget(name: "EntityStreamAnalysesTests", dependencies: [
            "EntityStream", "EntityStreamAnalyses", "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles",
            "EntityStreamHotSpots", "EntityStreamModel", "EntityStreamRaster", "EntityStreamStatistics", "EntityStreamTestSupport",
            "EntityStreamWhere",
        ]),
        .testTarget(name: "EntityStreamJetStreamTests", dependencies: [
            "EntityStreamCore", "EntityStreamFeatures", "EntityStreamJetStream", "EntityStreamModel", "EntityStreamStatistics",
            "EntityStreamTestSupport",
        ]),
        .testTarget(name: "StreamSimulatorTests", dependencies: [
            "EntityStream", "EntityStreamAnalyses", "EntityStreamCore", "EntityStreamFeatures", "EntityStreamFiles",
            "EntityStreamHotSpots", "EntityStreamLocking", "EntityStreamModel", "EntityStreamProjection", "EntityStreamStatistics",
            "EntityStreamTransport", "EntityStreamWhere", "StreamSimulator", "EntityStreamTestSupport",
        ]),
        .testTarget(name: "EntityStreamCLITests", dependencies: [
            "EntityStreamCLI", "EntityStreamCommandLine", "EntityStreamCore", "EntityStreamModel", "EntityStreamProjection",
            "EntityStreamRaster", "EntityStreamTransport", "StreamSimulatorCLI", "EntityStreamTestSupport",
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// Compiler settings every Swift target shares (Sources, Tests, Simulator, benchmarks), set
// once here rather than on each target: existential types are spelled `any P`, and a file
// imports every module whose members it uses instead of seeing them through another file's
// imports. InternalImportsByDefault is not on (yet): every `import` would need its access level.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
