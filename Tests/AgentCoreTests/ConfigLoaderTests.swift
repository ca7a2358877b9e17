import TestSupport
@testable import AgentCore
import Foundation
import MainLoop
import Testing

@Suite struct ConfigLoaderTests {
    let dir = ScratchDirectory()

    func configFile(_ text: String) -> String { dir.write("agent.conf", text) }

    @Test func defaultsWithOnlyAServer() throws {
        let config = try ConfigLoader.load(arguments: ["--server", "ws://127.0.0.1:8080"], environment: [:])
        var expected = AgentConfig(server: "ws://127.0.0.1:8080")
        expected.stateDir = "/var/lib/wcs-agent"
        expected.socketPath = "/run/wcs-agent/control.sock"
        #expect(config == expected)
        #expect(config.appKey == "defaultApp" && config.register && config.keepAlive && !config.insecureTLS)
        #expect(config.logLevel == .info && config.receiveProbes == 3 && config.probesInterval == 5)
        #expect(config.connectTimeout == 10 && config.backoffCap == 60 && config.sipPassword == nil)
    }

    @Test func fileValuesAreReadAndFlagsOverrideThem() throws {
        let path = configFile("""
            [server]
            url = ws://file.example:8080
            app_key = fileApp
            insecure_tls = yes
            connect_timeout = 2.5
            [sip]
            login = 1001
            domain = sip.example
            outbound_proxy = proxy.example
            port = 5060
            register = false
            [agent]
            state_dir = /srv/state
            socket = /srv/control.sock
            socket_group = wcs
            log_level = debug
            keepalive = off
            receive_probes = 4
            probes_interval = 2
            backoff_cap = 30s
            """)
        let fromFile = try ConfigLoader.load(arguments: ["--config", path], environment: [:])
        #expect(fromFile.server == "ws://file.example:8080" && fromFile.appKey == "fileApp")
        #expect(fromFile.insecureTLS && fromFile.connectTimeout == 2.5)
        #expect(fromFile.sipLogin == "1001" && fromFile.sipAuthName == "1001" && fromFile.sipDomain == "sip.example")
        #expect(fromFile.sipOutboundProxy == "proxy.example" && fromFile.sipPort == 5060 && !fromFile.register)
        #expect(fromFile.stateDir == "/srv/state" && fromFile.socketPath == "/srv/control.sock" && fromFile.socketGroup == "wcs")
        #expect(fromFile.logLevel == .debug && !fromFile.keepAlive && fromFile.receiveProbes == 4)
        #expect(fromFile.probesInterval == 2 && fromFile.backoffCap == 30)

        let ca = dir.write("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        let overridden = try ConfigLoader.load(arguments: [
            "--config=\(path)", "--server", "wss://flag.example/ws", "--sip-port=5080", "--register",
            "--sip-auth-name", "auth1001", "--log-level=warning", "--state-dir", "/flag/state", "--socket=/flag/c.sock",
            "--app-key", "flagApp", "--sip-domain", "d2", "--sip-outbound-proxy", "p2", "--ca-file", ca,
            "--socket-group", "g2", "--sip-login", "1002",
        ], environment: [:])
        #expect(overridden.server == "wss://flag.example/ws" && overridden.sipPort == 5080 && overridden.register)
        #expect(overridden.sipAuthName == "auth1001" && overridden.effectiveSipAuthName == "auth1001")
        #expect(overridden.logLevel == .warning && overridden.stateDir == "/flag/state" && overridden.socketPath == "/flag/c.sock")
        #expect(overridden.appKey == "flagApp" && overridden.sipDomain == "d2" && overridden.sipOutboundProxy == "p2")
        #expect(overridden.caFile == ca && overridden.socketGroup == "g2" && overridden.sipLogin == "1002")
        // Not overridden: still from the file.
        #expect(overridden.insecureTLS && overridden.connectTimeout == 2.5 && !overridden.keepAlive && overridden.receiveProbes == 4)
    }

    @Test func lastOfRegisterAndNoRegisterWins() throws {
        let base = ["--server", "ws://h"]
        #expect(try !ConfigLoader.load(arguments: base + ["--register", "--no-register"], environment: [:]).register)
        #expect(try ConfigLoader.load(arguments: base + ["--no-register", "--register"], environment: [:]).register)
    }

    @Test func systemdDirectoriesProvideDefaults() throws {
        let environment = ["STATE_DIRECTORY": "/var/lib/wcs-agent-a:/var/lib/other", "RUNTIME_DIRECTORY": "/run/wcs-agent-a"]
        let config = try ConfigLoader.load(arguments: ["--server", "ws://h"], environment: environment)
        #expect(config.stateDir == "/var/lib/wcs-agent-a")
        #expect(config.socketPath == "/run/wcs-agent-a/control.sock")
        let flagged = try ConfigLoader.load(arguments: ["--server", "ws://h", "--state-dir", "/x"], environment: environment)
        #expect(flagged.stateDir == "/x")
    }

    @Test func passwordComesFromTheCredentialsDirectory() throws {
        let credentials = ScratchDirectory()
        credentials.write("sip-password", "s3cret-from-credential\n", mode: 0o400)
        let config = try ConfigLoader.load(arguments: ["--server", "ws://h", "--sip-login", "1001"],
                                           environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        #expect(config.sipPassword == "s3cret-from-credential")
        #expect(config.sipPasswordFile == credentials.file("sip-password"))
        #expect(!config.description.contains("s3cret"))
        #expect(config.description.contains("sipPassword=<set>"))
        var dumped = ""
        dump(config, to: &dumped)
        #expect(!dumped.contains("s3cret"))
    }

    @Test func passwordSourcesInOrderFlagThenFileThenCredentials() throws {
        let credentials = ScratchDirectory()
        credentials.write("sip-password", "from-credentials")
        let fromConfig = dir.write("pw-config", "from-config-file\r\n")
        let fromFlag = dir.write("pw-flag", "from-flag-file")
        let path = configFile("[server]\nurl = ws://h\n[sip]\nlogin = 1\npassword_file = pw-config\n")
        let environment = ["CREDENTIALS_DIRECTORY": credentials.path]

        let byFlag = try ConfigLoader.load(arguments: ["--config", path, "--sip-password-file", fromFlag], environment: environment)
        #expect(byFlag.sipPassword == "from-flag-file" && byFlag.sipPasswordFile == fromFlag)
        let byConfig = try ConfigLoader.load(arguments: ["--config", path], environment: environment)
        #expect(byConfig.sipPassword == "from-config-file" && byConfig.sipPasswordFile == fromConfig)
        let byCredential = try ConfigLoader.load(arguments: ["--server", "ws://h", "--sip-login", "1"], environment: environment)
        #expect(byCredential.sipPassword == "from-credentials")
        let noCredentialFile = try ConfigLoader.load(arguments: ["--server", "ws://h"],
                                                     environment: ["CREDENTIALS_DIRECTORY": dir.file("empty-dir-does-not-exist")])
        #expect(noCredentialFile.sipPassword == nil)
    }

    @Test func unreadableOrEmptyPasswordFilesAreClearErrors() {
        let empty = dir.write("empty", "\n")
        let base = ["--server", "ws://h", "--sip-login", "1"]
        #expect(throws: ConfigError("SIP password file \(empty) is empty")) {
            try ConfigLoader.load(arguments: base + ["--sip-password-file", empty], environment: [:])
        }
        let missing = dir.file("missing")
        #expect(throws: ConfigError("cannot read SIP password file \(missing): No such file or directory")) {
            try ConfigLoader.load(arguments: base + ["--sip-password-file", missing], environment: [:])
        }
        #expect(throws: ConfigError("cannot read SIP password file \(dir.path): Is a directory")) {
            try ConfigLoader.load(arguments: base + ["--sip-password-file", dir.path], environment: [:])
        }
    }

    @Test(arguments: [["--sip-password", "hunter2"], ["--sip-password=hunter2"], ["--sip-password"]])
    func passwordOnTheCommandLineIsRefused(form: [String]) throws {
        let error = #expect(throws: UsageError.self) {
            try ConfigLoader.load(arguments: ["--server", "ws://h"] + form, environment: [:])
        }
        let message = try #require(error).description
        #expect(message.contains("--sip-password-file"))
        #expect(message.contains("$CREDENTIALS_DIRECTORY/sip-password"))
        #expect(!message.contains("hunter2"))
    }

    @Test func fileErrorsNameFileLineAndKey() {
        let unknown = configFile("[server]\nurl = ws://h\n[sip]\nlogin = 1\nx = 2\n")
        #expect(throws: ConfigError("\(unknown):5: unknown key \"x\" in [sip]")) {
            try ConfigLoader.load(arguments: ["--config", unknown], environment: [:])
        }
        let badBool = configFile("[server]\nurl = ws://h\n[sip]\nregister = sometimes\n")
        #expect(throws: ConfigError("\(badBool):4: invalid boolean \"sometimes\" for register in [sip] (use true/false, yes/no, on/off, 1/0)")) {
            try ConfigLoader.load(arguments: ["--config", badBool], environment: [:])
        }
        let badInt = configFile("[server]\nurl = ws://h\n[agent]\nreceive_probes = many\n")
        #expect(throws: ConfigError("\(badInt):4: invalid integer \"many\" for receive_probes in [agent] (expected 0...1000)")) {
            try ConfigLoader.load(arguments: ["--config", badInt], environment: [:])
        }
        let badLevel = configFile("[server]\nurl = ws://h\n[agent]\nlog_level = loud\n")
        #expect(throws: ConfigError("\(badLevel):4: invalid value \"loud\" for log_level in [agent] (expected debug, info, notice, warning or error)")) {
            try ConfigLoader.load(arguments: ["--config", badLevel], environment: [:])
        }
    }

    @Test func maxCallsRunsUpToTheDocumentedLimit() throws {
        let many = configFile("[server]\nurl = ws://h\n[calls]\nmax_calls = 64\n")
        #expect(try ConfigLoader.load(arguments: ["--config", many], environment: [:]).maxCalls == 64)
        let most = configFile("[server]\nurl = ws://h\n[calls]\nmax_calls = \(AgentConfig.maxCallsLimit)\n")
        #expect(try ConfigLoader.load(arguments: ["--config", most], environment: [:]).maxCalls == 256)
        let tooMany = configFile("[server]\nurl = ws://h\n[calls]\nmax_calls = 257\n")
        #expect(throws: ConfigError("\(tooMany):4: invalid integer \"257\" for max_calls in [calls] (expected 1...256)")) {
            try ConfigLoader.load(arguments: ["--config", tooMany], environment: [:])
        }
    }

    @Test func missingOrInvalidServerIsAnError() {
        let noServer = configFile("[sip]\nlogin = 1\n")
        #expect(throws: ConfigError("missing server: set url in [server] of \(noServer) or pass --server ws://host:8080 (or wss://)")) {
            try ConfigLoader.load(arguments: ["--config", noServer], environment: [:])
        }
        #expect(throws: ConfigError("missing server: pass --server ws://host:8080 (or wss://)")) {
            try ConfigLoader.load(arguments: [], environment: [:])
        }
        #expect(throws: ConfigError("invalid server URL \"http://h\": expected ws://host[:port][/path] or wss://...")) {
            try ConfigLoader.load(arguments: ["--server", "http://h"], environment: [:])
        }
        #expect(throws: ConfigError.self) { try ConfigLoader.load(arguments: ["--server", "ws://"], environment: [:]) }
    }

    @Test func badFlagValuesAreErrors() {
        #expect(throws: ConfigError("--sip-port: invalid port \"0\" (expected 1...65535)")) {
            try ConfigLoader.load(arguments: ["--server", "ws://h", "--sip-port", "0"], environment: [:])
        }
        #expect(throws: ConfigError("--log-level: invalid level \"chatty\" (expected debug, info, notice, warning or error)")) {
            try ConfigLoader.load(arguments: ["--server", "ws://h", "--log-level", "chatty"], environment: [:])
        }
        #expect(throws: UsageError("unexpected argument \"extra\"")) {
            try ConfigLoader.load(arguments: ["--server", "ws://h", "extra"], environment: [:])
        }
        #expect(throws: UsageError("--server needs a non-empty value")) {
            try ConfigLoader.load(arguments: ["--server="], environment: [:])
        }
    }

    @Test func theExampleConfigIsValid() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/wcs-agent.conf").standardized.path
        let file = try ConfigFile.load(path: example)
        try file.validate(schema: ConfigLoader.fileSchema)
        var config = AgentConfig(server: "")
        try ConfigLoader.apply(file, to: &config)
        #expect(config.server.hasPrefix("wss://"))
        #expect(config.sipLogin != nil)
        // Every documented key appears in the example (commented or not) so it stays a full reference.
        let text = try #require(contents(example))
        for (section, keys) in ConfigLoader.fileSchema {
            #expect(text.contains("[\(section)]"))
            for key in keys { #expect(text.contains("\(key) ="), "missing \(key) in the example") }
        }
    }
}
