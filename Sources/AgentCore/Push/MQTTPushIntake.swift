import FoundationEssentials
import MainLoop
import Synchronization

/// The native MQTT push intake (`[push] mqtt`): each message on the line's topic is a raw push,
/// handled as the webhook's: recorded in the `PushLedger` before the broker gets its
/// acknowledgement, then the agent wakes once per call id (`TakenPushDelivery`) and answers with a
/// `push` event. A message that is not a push is acknowledged (it can never become one), logged and
/// counted as `invalid`. The connection's ups and downs are `push_intake` events.
///
/// Runs on: this facade from any thread; the connection (`MQTTPushClient`) on the shared main loop.
public final class MQTTPushIntake: Sendable {
    public let settings: MQTTPushSettings
    private let client: Mutex<MQTTPushClientBox?> = Mutex(nil)

    /// Starts connecting (in the background). Throws when libmosquitto or the TLS/credential
    /// settings cannot be used at all.
    init(settings: MQTTPushSettings, host: AgentHost, delivery: TakenPushDelivery) async throws(ConfigError) {
        self.settings = settings
        let (box, failure): (MQTTPushClientBox, String?) = await MainLoopActor.run {
            let mqtt = MQTTPushClient(settings: settings, onMessage: { data in
                Self.received(data, host: host, delivery: delivery)
            }, onState: { connected, error in
                let event = AgentEvent.pushIntake(source: PushSource.mqtt.rawValue, state: connected ? "connected" : "disconnected", error: error)
                Task { await host.current.publishEvent(event) }
            })
            return (MQTTPushClientBox(mqtt), mqtt.start())
        }
        client.withLock { $0 = box }
        if let failure { throw ConfigError("[push] mqtt: \(failure)") }
    }

    /// A message on the topic: taken (durably) and delivered, or answered as a duplicate or invalid.
    @MainLoopActor
    private static func received(_ data: Data, host: AgentHost, delivery: TakenPushDelivery) -> Bool {
        let agent = host.current
        let payload: PushPayload
        do {
            payload = try PushPayload(data: data)
        } catch {
            Task { await agent.refusedPush(source: .mqtt, reason: "\(error)") }
            return true
        }
        let taken = agent.pushLedger.take(payload, source: PushSource.mqtt.rawValue)
        if taken.isNew {
            Log.info("push", "mqtt: push for call \(payload.callId)")
            delivery.deliver(payload, source: .mqtt)
        } else {
            Task { _ = await agent.wake(push: payload, source: .mqtt) }  // answered `duplicate`
        }
        return taken.isDurable
    }

    /// Whether the broker connection is up, and the last error.
    public var connection: (connected: Bool, error: String?) {
        get async {
            guard let box = client.withLock({ $0 }) else { return (false, nil) }
            return await MainLoopActor.run { (box.client.phase == .online, box.client.lastError) }
        }
    }

    /// Publishes `offline`, disconnects cleanly and frees the client (at most ~1 s).
    public func close() async {
        guard let box = client.withLock({ current in defer { current = nil }; return current }) else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            MainLoopActor.post { box.client.stop { done.resume() } }
        }
    }
}

/// Holds the loop-bound client so the Sendable facade can keep it.
private final class MQTTPushClientBox: @unchecked Sendable {  // only touched on the loop
    let client: MQTTPushClient
    init(_ client: MQTTPushClient) { self.client = client }
}
