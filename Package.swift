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
        .target(name: "Locking"),
        .target(name: "Transport", dependencies: ["CLibWebSockets", "Locking"]),
        .target(name: "EntityStreamCore", dependencies: ["Locking"]),
        .target(name: "Raster", dependencies: ["CLibTIFF", "CLibGeoTIFF", "CPROJ", "EntityStreamCore"]),
        .target(name: "EntityStream", dependencies: ["EntityStreamCore", "Transport", "Locking", "Statistics", "HotSpots", "Raster"]),
        .target(name: "HotSpots", dependencies: ["EntityStreamCore"]),
        .target(name: "StreamSimulator", dependencies: ["EntityStreamCore", "Transport", "Locking", "Statistics", "HotSpots"], path: "Simulator/Sources/StreamSimulator"),
        .executableTarget(name: "EntityStreamCLI", dependencies: ["EntityStream", "EntityStreamCore", "Transport", "StreamSimulator", "Locking", "Statistics", "HotSpots", "Raster"]),
        .executableTarget(name: "StreamSimulatorCLI", dependencies: ["StreamSimulator", "EntityStreamCore", "Transport", "Locking"],
                          path: "Simulator/Sources/stream-simulator"),
        .executableTarget(name: "Benchmarks", dependencies: ["Transport", "EntityStreamCore", "EntityStream", "Statistics", "HotSpots", "Raster"], exclude: ["Peers"]),
        .target(name: "Statistics", dependencies: ["EntityStreamCore"]),
        .target(name: "EntityStreamTestSupport", dependencies: ["EntityStreamCore", "EntityStream", "Transport", "Locking"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "EntityStreamCoreTests", dependencies: ["EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "StatisticsTests", dependencies: ["Statistics", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "EntityStreamTestSupport"]),
        .testTarget(name: "StreamSimulatorTests", dependencies: ["StreamSimulator", "EntityStreamCore", "EntityStream", "Transport", "EntityStreamTestSupport", "Locking", "Statistics", "HotSpots"]),
        .testTarget(name: "CommandLineTests", dependencies: ["EntityStreamCLI", "StreamSimulatorCLI", "EntityStreamCore", "EntityStreamTestSupport", "Raster", "Transport"]),
        .testTarget(name: "HotSpotsTests", dependencies: ["HotSpots", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "EntityStreamTests", dependencies: ["EntityStream", "EntityStreamCore", "Transport", "EntityStreamTestSupport", "Statistics", "HotSpots", "Raster"],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
