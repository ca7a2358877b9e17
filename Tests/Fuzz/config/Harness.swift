// Fuzz harness: the configuration file (AgentCore/Config `ConfigFile`, `ConfigLoader`), as
// `wcs-agent daemon --config FILE` and a reload read it. Runs on libFuzzer's one thread; built
// by scripts/fuzz.py.

import Foundation
@testable import AgentCore

/// One input is one file's text. Checks: nothing traps; every error is a `ConfigError` that
/// names the file; whatever parses is checked against the schema and applied as the loader does.
/// (A `*_file` key may name any path; files are only read, up to 64 KiB.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput(data, size).all, as: UTF8.self)
    let path = "/fuzz/agent.conf"
    do {
        let file = try ConfigFile.parse(text, path: path)
        try file.validate(schema: ConfigLoader.fileSchema)
        var config = AgentConfig(server: "")
        try ConfigLoader.apply(file, to: &config)
        _ = try? file.section("sip").path("password_file")
        _ = try? ConfigLoader.validate(config, configPath: path)
    } catch let error as ConfigError {
        fuzzCheck(!error.description.isEmpty, "an empty config error")
    } catch {
        fuzzCheck(false, "a config error of type \(type(of: error)): \(error)")
    }
    return 0
}
