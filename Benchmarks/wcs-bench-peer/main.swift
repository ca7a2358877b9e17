import AudioPipe
import Foundation

// wcs-bench-peer: the far ends of many calls in one process, built on AudioPipe, for `make bench`'s
// scaling table. It speaks JSON lines: commands on stdin (PeerCommand), replies and events on stdout
// (PeerOutput). It never signals by itself: scripts/bench.py relays each offer to the WCS emulator
// (`POST /ring` with `offer_sdp`, an external media leg) and brings the agent's answer back, so one
// signaling path (the emulator's control API) serves every call. ICE, DTLS-SRTP and Opus then run
// directly between this process and the agent, over 127.0.0.1. `--cheap` makes its calls replay
// pre-encoded Opus and decode a sample of what arrives (PeerMode), so that 64 far ends cost little.
//
// Threads: stdin is read on the main thread (blocking readLine); each command runs in its own Task
// on the `PeerCalls` actor; AudioPipe runs media on its loop and audio threads.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(PeerMode.usage)
    exit(0)
}
let mode: PeerMode
do {
    mode = try PeerMode.parse(arguments)
} catch {
    FileHandle.standardError.write(Data("wcs-bench-peer: \(error)\n\(PeerMode.usage)\n".utf8))
    exit(2)
}
let output = PeerOutput()
let calls = PeerCalls(output: output, mode: mode)
let tasks = PeerTaskCounter()

while let line = readLine() {
    guard !line.isEmpty else { continue }
    let command: PeerCommand
    do {
        command = try JSONDecoder().decode(PeerCommand.self, from: Data(line.utf8))
    } catch {
        output.emit(["error": "bad command: \(error)"])
        continue
    }
    if command.op == "quit" { break }
    tasks.started()
    Task.detached {  // not the main actor: the main thread blocks in readLine()
        await calls.handle(command)
        tasks.finished()
    }
}
tasks.waitUntilIdle()
calls.closeAllNow()
output.emit(["event": "bye"])
exit(0)
