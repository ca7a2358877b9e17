import AgentControl
import Testing

/// Which command lines the lean front answers itself and which go to the full binary.
@Suite struct FrontRouteTests {
    @Test func clientVerbsStayInTheFront() {
        #expect(FrontRoute(["reconnect"]) == .client(verb: "reconnect", arguments: []))
        #expect(FrontRoute(["reconnect", "--payload", "-", "--line", "a"])
                == .client(verb: "reconnect", arguments: ["--payload", "-", "--line", "a"]))
        for verb in ["status", "answer", "decline", "hangup", "hold", "resume", "mute", "unmute", "call", "dtmf", "transfer",
                     "calls", "reload", "metrics", "sleep"] {
            #expect(FrontRoute([verb, "--json"]) == .client(verb: verb, arguments: ["--json"]), "\(verb)")
        }
        #expect(FrontRoute(["status", "--all"]) == .client(verb: "status", arguments: ["--all"]))
        #expect(FrontRoute(["events", "--json"]) == .events(arguments: ["--json"]))
        #expect(FrontRoute(["events"]) == .events(arguments: []))
        #expect(FrontRoute(["--version"]) == .version && FrontRoute(["version"]) == .version)
    }

    @Test func everythingElseGoesToTheFullBinary() {
        for line in [[], ["run"], ["run", "--config", "x"], ["prompt"], ["doctor"], ["history", "--json"],
                     ["--help"], ["help"], ["-h"], ["status", "--help"], ["reconnect", "-h"], ["events", "--json", "--help"],
                     ["hello"], ["fly"], ["--status"]] {
            #expect(FrontRoute(line) == .fullBinary, "\(line)")
        }
    }

    @Test func everyClientVerbOfTheTableIsRoutedToTheFront() {
        for verb in ControlVerbs.all {
            #expect(FrontRoute([verb.name]) == (verb.isCommand ? .client(verb: verb.name, arguments: []) : .fullBinary), "\(verb.name)")
        }
    }

    /// The front routes by `ControlVerbs.named`, which builds one verb: it must find every verb of the
    /// table, under its own name, and nothing else.
    @Test func oneVerbIsBuiltByNameAsTheTableHasIt() {
        #expect(ControlVerbs.all.count == ControlVerbs.names.count)
        #expect(Set(ControlVerbs.names).count == ControlVerbs.names.count)
        for name in ControlVerbs.names {
            let verb = ControlVerbs.named(name)
            #expect(verb?.name == name, "\(name)")
            #expect(verb?.usage == ControlVerbs.byName[name]?.usage && verb?.isCommand == ControlVerbs.byName[name]?.isCommand)
        }
        for unknown in ["", "Status", "status ", "subscribe", "events", "fly"] {
            #expect(ControlVerbs.named(unknown) == nil, "\(unknown)")
        }
    }

    @Test func theFullBinaryIsLookedForNextToTheFrontThenInThePackage() {
        #expect(FullBinary.candidates(frontPath: "/repo/.build/debug/wcs-agent", environment: [:])
                == ["/repo/.build/debug/wcs-agentd", "/usr/lib/wcs-agent/wcs-agentd"])
        #expect(FullBinary.candidates(frontPath: "/usr/lib/wcs-agent/wcs-agent", environment: [:]) == ["/usr/lib/wcs-agent/wcs-agentd"])
        #expect(FullBinary.candidates(frontPath: "/wcs-agent", environment: [:]) == ["/wcs-agentd", "/usr/lib/wcs-agent/wcs-agentd"])
        #expect(FullBinary.candidates(frontPath: nil, environment: [:]) == ["/usr/lib/wcs-agent/wcs-agentd"])
    }

    @Test func aMissingFullBinaryIsNamedInTheMessage() {
        let message = FullBinary.exec(["wcs-agent", "run"], candidates: ["/nonexistent/a/wcs-agentd", "/nonexistent/b/wcs-agentd"])
        #expect(message.contains("/nonexistent/a/wcs-agentd and /nonexistent/b/wcs-agentd"))
        #expect(message.contains("`wcs-agent run` needs it"))
    }

    @Test func theVersionLineNamesTheProtocol() {
        #expect(FrontRoute.versionLine == "wcs-agent \(AgentVersion.version) (control protocol \(ControlProtocolVersion.current))")
    }
}
