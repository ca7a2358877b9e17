@testable import AudioPipe
import Testing

/// Which of a STUN/TURN name's addresses the ICE agent uses, with a name that resolves to both
/// families (injected: the tests write no /etc/hosts) and with the real getaddrinfo.
@Suite struct ICEServerResolverTests {
    /// `turn.dual.test` as a stock Debian resolves `localhost`: IPv6 first, duplicates included.
    static let dual: ICEServerResolver.Lookup = { name in
        name == "turn.dual.test" ? ["::1", "127.0.0.1", "::1", "127.0.0.2", "2001:db8::7"] : nil
    }

    @Test func aLiteralIsUsedAsGivenWithoutALookup() throws {
        let never: ICEServerResolver.Lookup = { name in Issue.record("looked up \(name)"); return nil }
        #expect(try ICEServerResolver.addresses(of: "192.0.2.1", lookup: never) == ["192.0.2.1"])
        #expect(try ICEServerResolver.relayAddresses(of: "2001:db8::1", lookup: never) == ["2001:db8::1"])
        #expect(try ICEServerResolver.stunAddress(of: "::1", localAddresses: ["127.0.0.1"], lookup: never) == "::1")
    }

    @Test func aDualStackNameKeepsEveryAddressOnceInTheResolversOrder() throws {
        #expect(try ICEServerResolver.addresses(of: "turn.dual.test", lookup: Self.dual)
                == ["::1", "127.0.0.1", "127.0.0.2", "2001:db8::7"])
    }

    @Test func turnGetsTheFirstAddressOfEachFamily() throws {
        #expect(try ICEServerResolver.relayAddresses(of: "turn.dual.test", lookup: Self.dual) == ["::1", "127.0.0.1"])
        let v4First: ICEServerResolver.Lookup = { _ in ["198.51.100.4", "198.51.100.5", "2001:db8::4"] }
        #expect(try ICEServerResolver.relayAddresses(of: "turn.example", lookup: v4First) == ["198.51.100.4", "2001:db8::4"])
        let v4Only: ICEServerResolver.Lookup = { _ in ["198.51.100.4", "198.51.100.5"] }
        #expect(try ICEServerResolver.relayAddresses(of: "turn.example", lookup: v4Only) == ["198.51.100.4"])
    }

    @Test func stunFollowsTheFamilyOfTheLocalAddressesInUse() throws {
        let pick = { (local: [String]) in try ICEServerResolver.stunAddress(of: "turn.dual.test", localAddresses: local, lookup: Self.dual) }
        #expect(try pick(["127.0.0.1"]) == "127.0.0.1")
        #expect(try pick(["::1", "127.0.0.1"]) == "127.0.0.1", "IPv4 first when there is an IPv4 host address")
        #expect(try pick(["lo"]) == "127.0.0.1", "an interface name stands for its IPv4 address")
        #expect(try pick(["::1"]) == "::1", "IPv6 when every local address is IPv6")
        let v6Only: ICEServerResolver.Lookup = { _ in ["2001:db8::9"] }
        #expect(try ICEServerResolver.stunAddress(of: "stun.example", localAddresses: ["127.0.0.1"], lookup: v6Only) == "2001:db8::9",
                "the only family there is, rather than nothing")
    }

    @Test func aNameWithoutAnyAddressIsUnresolvable() {
        #expect(throws: ICEError.unresolvableServer("gone.test")) { try ICEServerResolver.addresses(of: "gone.test", lookup: { _ in nil }) }
        #expect(throws: ICEError.unresolvableServer("odd.test")) { try ICEServerResolver.relayAddresses(of: "odd.test", lookup: { _ in ["not-an-address"] }) }
        #expect(throws: ICEError.unresolvableServer("no-such-host.invalid")) { try ICEServerResolver.addresses(of: "no-such-host.invalid") }
    }

    @Test func theSystemResolverGivesLocalhostsLoopbackAddresses() throws {
        let all = try ICEServerResolver.addresses(of: "localhost")
        #expect(all.contains("127.0.0.1"))
        #expect(all.allSatisfy { $0 == "127.0.0.1" || $0 == "::1" }, "\(all)")
        #expect(try ICEServerResolver.stunAddress(of: "localhost", localAddresses: ["127.0.0.1"]) == "127.0.0.1")
        #expect(try ICEServerResolver.relayAddresses(of: "localhost").contains("127.0.0.1"))
    }
}
