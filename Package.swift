// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "EntityStream",
    products: [
        .library(name: "EntityStream", targets: ["EntityStreamCore", "EntityStream", "Transport"]),
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
        .target(name: "EntityStreamTestSupport", path: "Sources/EntityStreamTestSupport"),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "EntityStreamTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
