import Foundation

/// Support for integration tests: starting the WCS emulator and using its control API.
///
/// - ``EmulatorProcess`` starts `Tests/Emulator/wcs_emulator.py` and waits for its ready line.
/// - ``EmulatorControl`` talks to the emulator's HTTP control API.
/// - ``ChildProcess`` spawns any helper process with a clean signal mask and kills it with SIGKILL.
/// - ``TemporaryDirectory`` is a scratch directory removed when the object goes away.
public enum TestSupport {
    /// The repository root, found from this file's compile-time path (`<root>/Tests/TestSupport/…`).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // root

    /// Absolute path of the emulator's entry script.
    public static var emulatorScript: String {
        repositoryRoot.appendingPathComponent("Tests/Emulator/wcs_emulator.py").path
    }

    /// The Python interpreter every test fixture uses (Debian's, with python3-websockets and aiortc).
    public static let python = "/usr/bin/python3"
}
