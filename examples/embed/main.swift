// A minimal program embedding WCSSession: log in (or resume the stored session by token), print
// the session's events, and on Ctrl-C close the socket while the server keeps the session.
import Foundation
import MainLoop
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// Prints one line at once (unbuffered, so a pipe sees it immediately).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("wcs-session-example: \(message)\n".utf8))
    exit(code)
}

if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") {
    say(ExampleOptions.usage)
    exit(0)
}
let options: ExampleOptions
do {
    options = try ExampleOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)\n\(ExampleOptions.usage)", code: 2)
}
if options.verbose {
    // The library logs through `Log`; without a handler it stays silent.
    Log.configure(minimumLevel: .debug) { level, subsystem, message in
        FileHandle.standardError.write(Data("[\(level)] \(subsystem): \(message)\n".utf8))
    }
}

var configuration = WCSSessionConfiguration(url: options.server)
configuration.caFile = options.caFile
configuration.allowInsecureTLS = options.insecureTLS
configuration.registerRequired = options.register
configuration.keepAlive = true
configuration.clientBrowserVersion = "wcs-session-example"
do {
    if let login = options.login, let password = try options.password() {
        configuration.credentials = SIPCredentials(login: login, password: Secret(password), domain: options.domain)
    }
} catch {
    fail("\(error)")
}

let session = WCSSession(configuration: configuration)
let tokenFile = TokenFile(path: options.tokenFile)

// Events arrive in order on one stream; print each as a line.
let printer = Task {
    for await event in session.events { say(EventPrinter.line(for: event)) }
}

/// Stores the session so the next run resumes it.
func remember(_ info: SessionInfo) {
    do { try tokenFile.save(server: options.server, session: info) } catch { fail("\(error)") }
}

if let stored = tokenFile.load(server: options.server) {
    say("resuming session \(stored.sessionId ?? "?") by token")
    switch await session.resume(token: stored.token) {
    case .resumed(let info), .resumedWithPendingCall(let info, _):
        say("resumed session \(info.sessionId ?? "?")")
    case .reloggedIn(let result, let reason):
        remember(result.session)
        say("token refused (\(reason)); logged in again: session \(result.session.sessionId ?? "?")")
    case .failed(let error):
        if error.kind == .tokenRejected { tokenFile.remove() }
        fail("resume failed: \(error)")
    }
} else {
    do {
        switch try await session.login() {
        case .registered(let info), .established(let info):
            remember(info)
            say("logged in: session \(info.sessionId ?? "?")")
        case .registrationFailed(_, let status, let info):
            fail("SIP registration failed: \(status ?? "?") \(info ?? "")")
        }
    } catch {
        fail("login failed: \(error)")
    }
}

// Run until Ctrl-C / SIGTERM (or --seconds).
let (stops, stop) = AsyncStream.makeStream(of: String.self)
let signalSources = StopSignals.install(stop)
if let seconds = options.seconds {
    Task {
        try? await Task.sleep(for: .seconds(seconds))
        stop.yield("\(seconds) s elapsed")
    }
}
/// The first reason to stop.
func firstStop() async -> String {
    for await reason in stops { return reason }
    return "stopped"
}
let why = await firstStop()
let sessionId = await session.sessionInfo?.sessionId
await session.disconnect()
say("\(why): socket closed; the server keeps session \(sessionId ?? "?") for the next run")
signalSources.forEach { $0.cancel() }
printer.cancel()
exit(0)
