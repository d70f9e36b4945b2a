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
        .target(name: "Transport", dependencies: ["CLibWebSockets"]),
        .target(name: "EntityStreamCore"),
        .target(name: "EntityStream", dependencies: ["EntityStreamCore", "Transport"]),
        .target(name: "StreamSimulator", dependencies: ["EntityStreamCore", "Transport"], path: "Simulator/Sources/StreamSimulator"),
        .executableTarget(name: "EntityStreamCLI", dependencies: ["EntityStream", "EntityStreamCore", "Transport", "StreamSimulator"]),
        .executableTarget(name: "StreamSimulatorCLI", dependencies: ["StreamSimulator", "EntityStreamCore", "Transport"],
                          path: "Simulator/Sources/stream-simulator"),
        .executableTarget(name: "Benchmarks", dependencies: ["Transport", "EntityStreamCore", "EntityStream"], exclude: ["Peers"]),
        .target(name: "EntityStreamTestSupport", dependencies: ["EntityStreamCore", "EntityStream", "Transport"]),
        .testTarget(name: "EntityStreamCoreTests", dependencies: ["EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "EntityStreamTestSupport"]),
        .testTarget(name: "StreamSimulatorTests", dependencies: ["StreamSimulator", "EntityStreamCore", "EntityStream", "Transport", "EntityStreamTestSupport"]),
        .testTarget(name: "CommandLineTests", dependencies: ["EntityStreamCLI", "StreamSimulatorCLI", "EntityStreamCore", "EntityStreamTestSupport"]),
        .testTarget(name: "EntityStreamTests", dependencies: ["EntityStream", "EntityStreamCore", "Transport", "EntityStreamTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
