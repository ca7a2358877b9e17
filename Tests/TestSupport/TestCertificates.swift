import Foundation

/// Throwaway TLS material for tests, made with the `openssl` CLI in a temporary directory:
/// a P-256 CA, a server certificate it signed for `localhost`, 127.0.0.1 and ::1, and a second
/// server certificate for a name tests never connect to (for hostname-mismatch tests).
public struct TestCertificates: Sendable {
    /// The directory holding every file.
    public let directory: String
    /// The CA certificate (PEM), to pass as a CA bundle.
    public let caFile: String
    /// Server certificate with SAN DNS:localhost, IP:127.0.0.1, IP:::1.
    public let serverCertificate: String
    /// The private key of `serverCertificate`.
    public let serverKey: String
    /// Server certificate, signed by the same CA, valid only for DNS:wrong-name.invalid.
    public let wrongNameCertificate: String
    /// The private key of `wrongNameCertificate`.
    public let wrongNameKey: String

    /// The certificates for this test process, generated on first use.
    public static func shared() throws -> TestCertificates {
        try cache.value()
    }

    /// Generates a fresh set in a new temporary directory.
    public static func generate() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wcs-test-certs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

        let caKey = path("ca.key"), caFile = path("ca.pem")
        try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", caKey])
        try openssl(["req", "-x509", "-new", "-key", caKey, "-sha256", "-days", "30",
                     "-subj", "/CN=wcs-agent test CA",
                     "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                     "-out", caFile])

        func serverCertificate(named name: String, subject: String, altNames: String) throws -> (String, String) {
            let key = path("\(name).key"), request = path("\(name).csr")
            let certificate = path("\(name).pem"), extensions = path("\(name).ext")
            try """
            subjectAltName=\(altNames)
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth

            """.write(toFile: extensions, atomically: true, encoding: .utf8)
            try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
            try openssl(["req", "-new", "-key", key, "-subj", subject, "-out", request])
            try openssl(["x509", "-req", "-in", request, "-CA", caFile, "-CAkey", caKey,
                         "-CAcreateserial", "-days", "30", "-sha256",
                         "-extfile", extensions, "-out", certificate])
            return (certificate, key)
        }
        let server = try serverCertificate(named: "server", subject: "/CN=localhost",
                                           altNames: "DNS:localhost,IP:127.0.0.1,IP:::1")
        let wrong = try serverCertificate(named: "wrong-name", subject: "/CN=wrong-name.invalid",
                                          altNames: "DNS:wrong-name.invalid")
        return TestCertificates(directory: directory, caFile: caFile,
                                serverCertificate: server.0, serverKey: server.1,
                                wrongNameCertificate: wrong.0, wrongNameKey: wrong.1)
    }

    /// Runs `openssl` with `arguments`; throws with its stderr if it fails.
    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestCertificateError(command: "openssl " + arguments.joined(separator: " "),
                                       output: String(decoding: output, as: UTF8.self))
        }
    }

    private static let cache = OnceCache()

    /// Generates the shared set once, under a lock.
    private final class OnceCache: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<TestCertificates, Error>?

        func value() throws -> TestCertificates {
            lock.lock(); defer { lock.unlock() }
            if let result { return try result.get() }
            let generated = Result { try TestCertificates.generate() }
            result = generated
            return try generated.get()
        }
    }
}

/// An `openssl` invocation failed.
public struct TestCertificateError: Error, CustomStringConvertible {
    /// The command line that failed.
    public let command: String
    /// What openssl wrote to stderr.
    public let output: String

    public var description: String { "\(command) failed: \(output)" }
}
