import Foundation
import EntityStreamTransport

/// A throwaway self-signed certificate and key for TLS tests, made with the
/// `openssl` command line tool (which `make setup` installs).
public struct TestCertificate: Sendable {
    public let directory: URL
    public let certificatePath: String
    public let privateKeyPath: String

    /// Generates a fresh RSA-2048 certificate for CN=localhost valid for a day.
    /// Throws when `openssl` is missing or fails, with its stderr.
    public static func make() async throws -> TestCertificate {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("entitystream-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let result = try await ProcessRunner.run("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
            "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        guard result.status == 0 else {
            throw TestSupportError("openssl failed (\(result.status)): \(result.standardError)")
        }
        return TestCertificate(directory: directory, certificatePath: certificate, privateKeyPath: key)
    }

    /// The pair as a server's TLS configuration.
    public var tlsFiles: TLSFiles { TLSFiles(certificatePath: certificatePath, privateKeyPath: privateKeyPath) }

    /// Deletes the files.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A failure in test scaffolding, with a message.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
