// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "EntityStream",
    products: [
        .library(name: "EntityStream", targets: ["EntityStreamCore", "EntityStream", "Transport"]),
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
        .target(name: "Transport", dependencies: ["CLibWebSockets", "Locking"]),
        .target(name: "EntityStreamCore", dependencies: ["Locking"]),
        .target(name: "Raster", dependencies: ["CLibTIFF", "CLibGeoTIFF", "CPROJ", "EntityStreamCore"]),
        .target(name: "EntityStream", dependencies: ["EntityStreamCore", "Transport", "Locking", "Statistics", "HotSpots", "Raster"]),
        .target(name: "HotSpots", dependencies: ["EntityStreamCore"]),
        .target(name: "StreamSimulator", dependencies: ["EntityStreamCore", "Transport", "Locking", "Statistics", "HotSpots"], path: "Simulator/Sources/StreamSimulator"),
        .executableTarget(name: "EntityStreamCLI", dependencies: ["EntityStream", "JetStream", "EntityStreamCore", "Transport", "StreamSimulator", "Locking", "Statistics", "HotSpots", "Raster"]),
        .executableTarget(name: "StreamSimulatorCLI", dependencies: ["StreamSimulator", "EntityStreamCore", "Transport", "Locking"],
                          path: "Simulator/Sources/stream-simulator"),
        .executableTarget(name: "Benchmarks", dependencies: ["Transport", "JetStream", "EntityStreamCore", "EntityStream", "Statistics", "HotSpots", "Raster"], exclude: ["Peers"]),
        .target(name: "Statistics", dependencies: ["EntityStreamCore"]),
        .target(name: "JetStream", dependencies: ["CLibNATS", "EntityStream", "EntityStreamCore", "Statistics", "Locking"]),
        .target(name: "EntityStreamTestSupport", dependencies: ["EntityStreamCore", "EntityStream", "Transport", "Locking"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "EntityStreamCoreTests", dependencies: ["EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "StatisticsTests", dependencies: ["Statistics", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "EntityStreamTestSupport"]),
        .testTarget(name: "StreamSimulatorTests", dependencies: ["StreamSimulator", "EntityStreamCore", "EntityStream", "Transport", "EntityStreamTestSupport", "Locking", "Statistics", "HotSpots"]),
        .testTarget(name: "CommandLineTests", dependencies: ["EntityStreamCLI", "StreamSimulatorCLI", "EntityStreamCore", "EntityStreamTestSupport", "Raster", "Transport"]),
        .testTarget(name: "HotSpotsTests", dependencies: ["HotSpots", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "JetStreamTests", dependencies: ["JetStream", "EntityStream", "EntityStreamCore", "Statistics", "EntityStreamTestSupport"]),
        .testTarget(name: "EntityStreamTests", dependencies: ["EntityStream", "EntityStreamCore", "Transport", "EntityStreamTestSupport", "Statistics", "HotSpots", "Raster"],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
