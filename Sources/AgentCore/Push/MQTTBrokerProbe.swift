import MainLoop

/// `doctor`'s broker check: connects to the `[push] mqtt` broker as the intake would (TLS verified
/// the same way, the same user and password) under its own client id with a clean session, so the
/// line's persistent session and the pushes queued for it are never touched; then disconnects.
public enum MQTTBrokerProbe {
    /// nil when the broker accepted the connection within `timeout` seconds, else why not.
    public static func check(_ settings: MQTTPushSettings, timeout: Double) async -> String? {
        await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            MainLoopActor.post {
                var answered = false
                var client: MQTTPushClient?
                @MainLoopActor func finish(_ result: String?) {
                    guard !answered else { return }
                    answered = true
                    let probe = client
                    probe?.stop { _ = probe; done.resume(returning: result) }
                    if probe == nil { done.resume(returning: result) }
                }
                let probe = MQTTPushClient(settings: settings, probe: true, onMessage: { _ in true }) { connected, error in
                    finish(connected ? nil : error ?? "the connection failed")
                }
                client = probe
                if let failure = probe.start() { return finish(failure) }
                MainLoopActor.schedule(after: timeout) { finish("no answer from \(settings.broker) within \(timeout) s") }
            }
        }
    }
}
