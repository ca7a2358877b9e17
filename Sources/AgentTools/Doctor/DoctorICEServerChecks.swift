import AgentCore
import AudioPipe

/// The doctor's STUN and TURN checks, at the addresses a call's ICE agent uses
/// (`ICEServerResolver`): the one STUN address that matches the local addresses in use, and
/// every TURN relay address (first IPv4, first IPv6). So a name whose first address is one the
/// server does not listen on passes here exactly when a call would still get its candidate.
///
/// `lookup` is getaddrinfo unless a test injects a name's addresses.
///
/// Runs on the CLI's task; blocking (DNS and `STUNProbe`'s poll deadlines).
extension DoctorNetworkChecks {
    /// STUN: a Binding request to `[media] stun`.
    static func stun(_ config: AgentConfig, timeout: Double, lookup: ICEServerResolver.Lookup = ICEServerResolver.system) -> DoctorVerdict {
        guard let server = config.stunServer else { return .ok("stun", "none configured (no server-reflexive candidates)") }
        let (host, port) = hostAndPort(server)
        do {
            let local = MediaAddresses.effective(configured: config.mediaAddresses, server: config.server)
            let address = try ICEServerResolver.stunAddress(of: host, localAddresses: local, lookup: lookup)
            let mapped = try STUNProbe.binding(host: address, port: port, timeout: timeout)
            return .ok("stun", "\(server)\(via(address, host)) answers; it sees this host as \(mapped)")
        } catch {
            return .failure("stun", "\(server): \(error)")
        }
    }

    /// TURN: an allocation on `[media] turn` with its credentials, released at once; tried at
    /// each relay address, ok when one allocates (a call then has its relay candidate).
    static func turn(_ config: AgentConfig, timeout: Double, lookup: ICEServerResolver.Lookup = ICEServerResolver.system) -> DoctorVerdict? {
        guard let server = config.turnServer, let user = config.turnUser, let password = config.turnPassword else {
            return config.turnServer == nil ? .ok("turn", "none configured") : nil
        }
        let (host, port) = hostAndPort(server)
        let tcp = config.turnTransport == "tcp"
        guard config.turnTransport != "tls" else { return .warning("turn", "\(server): turn_transport tls is not probed") }
        let addresses: [String]
        do { addresses = try ICEServerResolver.relayAddresses(of: host, lookup: lookup) } catch {
            return .failure("turn", "\(server) (\(config.turnTransport)): \(error)")
        }
        var failures: [String] = []
        for address in addresses {
            do {
                let relayed = try STUNProbe.allocate(host: address, port: port, tcp: tcp, user: user, password: password, timeout: timeout)
                let others = failures.isEmpty ? "" : "; \(failures.joined(separator: "; "))"
                return .ok("turn", "\(server) (\(config.turnTransport))\(via(address, host)): allocated a relay at \(relayed) for \(user), released\(others)")
            } catch {
                failures.append(address == host ? "\(error)" : "at \(address): \(error)")
            }
        }
        return .failure("turn", "\(server) (\(config.turnTransport)): \(failures.joined(separator: "; "))")
    }

    /// " at 127.0.0.1" when `host` is a name, nothing for a literal.
    private static func via(_ address: String, _ host: String) -> String {
        address == host ? "" : " at \(address)"
    }
}
