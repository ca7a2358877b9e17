import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The native MQTT intake's settings (`[push] mqtt = mqtt://HOST[:PORT]/TOPIC` or `mqtts://`, and
/// the `mqtt_*` keys; docs/config.md). The password is read from `mqtt_password_file` only and
/// never appears in `description`.
public struct MQTTPushSettings: Sendable, Equatable, CustomStringConvertible {
    /// The broker's host name or address (an IPv6 literal without brackets).
    public var host: String
    public var port: Int
    /// `mqtts://`: TLS, verified against `caFile` or the system store unless `insecureTLS`.
    public var tls: Bool
    /// The topic the pushes for this line are published on (no wildcards).
    public var topic: String
    /// CA bundle for the broker's certificate; nil = the system store.
    public var caFile: String?
    /// Skip the broker certificate's verification (testing only).
    public var insecureTLS = false
    public var username: String?
    /// Read from `mqtt_password_file`; never logged.
    public var password: String?
    /// The client id: the broker keeps this line's session (and the pushes queued for it) under it.
    public var clientId: String
    /// Seconds between keepalive pings (MQTT keepalive).
    public var keepAlive: Int = 30
    /// The retained `online`/`offline` topic (the last will says `offline`).
    public var availabilityTopic: String

    /// The payloads of the availability topic.
    public static let online = "online", offline = "offline"

    /// Parses the URL; `clientId` and `availabilityTopic` get their defaults (`defaultClientId`, `TOPIC/availability`).
    public init(parsing url: String, clientId: String) throws(ConfigError) {
        let scheme: String
        if url.hasPrefix("mqtt://") { scheme = "mqtt" } else if url.hasPrefix("mqtts://") { scheme = "mqtts" } else {
            throw ConfigError("invalid MQTT URL \"\(url)\": expected mqtt://HOST[:PORT]/TOPIC or mqtts://HOST[:PORT]/TOPIC")
        }
        tls = scheme == "mqtts"
        let rest = url.dropFirst(scheme.count + 3)
        guard let slash = rest.firstIndex(of: "/") else {
            throw ConfigError("invalid MQTT URL \"\(url)\": no topic (expected \(scheme)://HOST[:PORT]/TOPIC)")
        }
        let authority = String(rest[..<slash])
        topic = String(rest[rest.index(after: slash)...])
        var hostPart = authority
        var portText: String?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ConfigError("invalid MQTT URL \"\(url)\": unclosed [") }
            hostPart = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = String(after.dropFirst()) } else if !after.isEmpty {
                throw ConfigError("invalid MQTT URL \"\(url)\": unexpected text after ]")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = String(authority[..<colon])
            portText = String(authority[authority.index(after: colon)...])
        }
        guard !hostPart.isEmpty, !hostPart.contains(where: { $0.isWhitespace || $0 == "@" || $0 == "/" }) else {
            throw ConfigError("invalid MQTT URL \"\(url)\": bad host (user names go in mqtt_username, never in the URL)")
        }
        host = hostPart
        if let portText {
            guard let p = ConfigValue.port(portText) else { throw ConfigError("invalid MQTT URL \"\(url)\": bad port \"\(portText)\"") }
            port = p
        } else {
            port = tls ? 8883 : 1883
        }
        try Self.validateTopic(topic, what: "MQTT URL topic")
        self.clientId = clientId
        availabilityTopic = topic + "/availability"
    }

    /// A topic one publishes to or subscribes to exactly: not empty, no wildcard, no NUL, not `$...`.
    public static func validateTopic(_ topic: String, what: String) throws(ConfigError) {
        guard !topic.isEmpty, topic.utf8.count <= 65535 else { throw ConfigError("\(what) is empty or too long") }
        guard !topic.contains("+"), !topic.contains("#"), !topic.hasPrefix("$"),
              !topic.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ConfigError("\(what) \"\(topic)\" must be one exact topic: no + or # wildcards, no control characters, not starting with $")
        }
    }

    /// `wcs-agent-HOSTNAME-LINE`: stable across restarts, unique in a fleet (the host name) and on a
    /// host (the line: `$WCS_AGENT_LINE`, which the template unit sets, else the SIP login); only
    /// letters, digits, `-`, `_` and `.` (what every broker accepts), at most 128 characters.
    public static func defaultClientId(line: String?, hostName: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let raw = "wcs-agent-\(hostName)-\(line ?? "agent")"
        return String(String(raw.map { allowed.contains($0) ? $0 : "_" }).prefix(128))
    }

    /// This host's name (`gethostname`), or `localhost`.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return name.isEmpty ? "localhost" : name
    }

    /// The broker as `mqtt[s]://HOST:PORT`.
    public var broker: String {
        "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The URL and options, the password masked.
    public var description: String {
        "\(broker)/\(topic) client_id=\(clientId) user=\(username ?? "-") password=\(password == nil ? "<unset>" : "<set>") "
            + "ca_file=\(caFile ?? "-") insecure_tls=\(insecureTLS) keepalive=\(keepAlive) availability=\(availabilityTopic)"
    }
}
