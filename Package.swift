// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "EntityStream",
    products: [
        .library(name: "EntityStream", targets: ["EntityStreamCore", "EntityStream", "Transport", "Projection"]),
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
        .target(name: "Locking"),
        .target(name: "Projection", dependencies: ["CPROJ", "Locking"]),
        .target(name: "Transport", dependencies: ["CLibWebSockets", "Locking"]),
        .target(name: "EntityStreamCore", dependencies: ["Locking", "Projection"]),
        .target(name: "Raster", dependencies: ["CLibTIFF", "CLibGeoTIFF", "Projection", "EntityStreamCore"]),
        .target(name: "EntityStream", dependencies: ["EntityStreamCore", "Transport", "Locking", "Statistics", "HotSpots", "Raster", "Projection"]),
        .target(name: "HotSpots", dependencies: ["EntityStreamCore", "Projection"]),
        .target(name: "StreamSimulator", dependencies: ["EntityStreamCore", "Transport", "Locking", "Statistics", "HotSpots", "Projection"], path: "Simulator/Sources/StreamSimulator"),
        .executableTarget(name: "EntityStreamCLI", dependencies: ["EntityStream", "EntityStreamCore", "Transport", "StreamSimulator", "Locking", "Statistics", "HotSpots", "Raster", "Projection", "ArgumentParsing", "JetStream"]),
        .executableTarget(name: "StreamSimulatorCLI", dependencies: ["StreamSimulator", "EntityStreamCore", "Transport", "Locking", "ArgumentParsing", "Projection"],
                          path: "Simulator/Sources/stream-simulator"),
        .executableTarget(name: "Benchmarks", dependencies: ["Transport", "JetStream", "EntityStreamCore", "EntityStream", "Statistics", "HotSpots", "Raster", "Projection"], exclude: ["Peers"]),
        .target(name: "Statistics", dependencies: ["EntityStreamCore"]),
        .target(name: "ArgumentParsing", dependencies: ["EntityStreamCore", "Projection", "Locking"]),
        .target(name: "JetStream", dependencies: ["CLibNATS", "EntityStream", "EntityStreamCore", "Statistics", "Locking"]),
        .target(name: "EntityStreamTestSupport", dependencies: ["EntityStreamCore", "EntityStream", "Transport", "Locking"]),
        .testTarget(name: "ProjectionTests", dependencies: ["Projection", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "EntityStreamCore", "EntityStreamTestSupport", "Projection"]),
        .testTarget(name: "EntityStreamCoreTests", dependencies: ["EntityStreamCore", "EntityStreamTestSupport", "Projection"]),
        .testTarget(name: "StatisticsTests", dependencies: ["Statistics", "EntityStreamCore", "EntityStreamTestSupport", "Projection"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "EntityStreamTestSupport"]),
        .testTarget(name: "StreamSimulatorTests", dependencies: ["StreamSimulator", "EntityStreamCore", "EntityStream", "Transport", "EntityStreamTestSupport", "Locking", "Statistics", "HotSpots", "Projection"]),
        .testTarget(name: "CommandLineTests", dependencies: ["EntityStreamCLI", "StreamSimulatorCLI", "EntityStreamCore", "EntityStreamTestSupport", "Raster", "Projection", "ArgumentParsing"]),
        .testTarget(name: "HotSpotsTests", dependencies: ["HotSpots", "EntityStreamCore", "EntityStreamTestSupport", "Projection"]),
        .testTarget(name: "JetStreamTests", dependencies: ["JetStream", "EntityStream", "EntityStreamCore", "Statistics", "EntityStreamTestSupport"]),
        .testTarget(name: "EntityStreamTests", dependencies: ["EntityStream", "EntityStreamCore", "Transport", "EntityStreamTestSupport", "Statistics", "HotSpots", "Raster", "Projection"],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
