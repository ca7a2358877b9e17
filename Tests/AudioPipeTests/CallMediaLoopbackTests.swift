@testable import AudioPipe
import Foundation
import Testing

extension CallMediaTests {
    /// Two CallMedia in one process over ICE on 127.0.0.1.
    @Suite struct Loopback {
        @Test("A 2 s call carries each side's tone to the other", arguments: [AudioCodecKind.opus, .pcmu])
        func twoWayTone(codec: AudioCodecKind) async throws {
            let configuration = CallMediaTestSupport.configuration(codecs: [codec])
            let pair = try await CallPair.connect(offerer: configuration, answerer: configuration)
            defer { pair.close() }
            #expect(await pair.waitForAudio())
            try await Task.sleep(nanoseconds: 2_200_000_000)
            let offererStats = pair.offerer.statistics()
            let answererStats = pair.answerer.statistics()
            pair.close()

            // Each side hears the other's tone: the offerer 880 Hz, the answerer 440 Hz.
            let offererHeard = ToneReport(pair.offererSink.samples, expected: 880)
            let answererHeard = ToneReport(pair.answererSink.samples, expected: 440)
            #expect(offererHeard.hasFrequency(880), "offerer heard \(offererHeard)")
            #expect(answererHeard.hasFrequency(440), "answerer heard \(answererHeard)")
            for heard in [offererHeard, answererHeard] {
                #expect(heard.rmsDBFS > -15, "level \(heard)")
                #expect(heard.cleanSNRDB > 20, "tone to noise \(heard)")
            }

            for (stats, peer) in [(offererStats, answererStats), (answererStats, offererStats)] {
                #expect(stats.codec == codec)
                #expect(stats.packetsSent >= 100, "\(stats)")
                #expect(stats.packetsReceived >= 100, "\(stats)")
                #expect(Double(stats.packetsReceived) >= 0.95 * Double(peer.packetsSent - 5), "\(stats) vs \(peer)")
                #expect(stats.packetsLost <= 2 && stats.fractionLost < 0.02, "\(stats)")
                #expect(stats.packetsDiscarded == 0, "\(stats)")
                #expect(stats.framesDecoded >= 90, "\(stats)")
                #expect(stats.firstAudioLatency.map { $0 > 0 } == true, "\(stats)")
                #expect(stats.srtpProfile != nil)
                #expect(stats.selectedPair?.local.address == "127.0.0.1")
                #expect(stats.localCandidateType == .host)
                #expect(stats.rtcpSent >= 1 && stats.rtcpReceived >= 1, "\(stats)")
            }
            // With RTCP about every second, at least one side has seen an SR answered within 2 s.
            #expect(offererStats.roundTripTimeMs != nil || answererStats.roundTripTimeMs != nil)
            for stats in [offererStats, answererStats] {
                if let rtt = stats.roundTripTimeMs { #expect(rtt >= 0 && rtt < 1000) }
            }
        }

        @Test("Events arrive in order and end with closed; close() is idempotent and closes the sink")
        func eventOrder() async throws {
            let before = Date().timeIntervalSince1970
            let pair = try await CallPair.connect()
            #expect(pair.offerer.firstAudioTime == nil)
            #expect(await pair.waitForAudio())
            // The decode moment on the wall clock (µs), stamped before the event reached us.
            let heard = Date().timeIntervalSince1970
            for media in [pair.offerer, pair.answerer] {
                let decoded = try #require(media.firstAudioTime)
                #expect(Double(decoded) / 1e6 > before && Double(decoded) / 1e6 <= heard, "\(decoded) not in \(before)...\(heard)")
            }
            pair.close()
            pair.close()
            for log in [pair.offererLog, pair.answererLog] {
                #expect(await log.wait(for: .closed))
                let events = log.events
                let kinds = events.map { event -> String in
                    switch event {
                    case .iceConnected: "ice"
                    case .dtlsConnected: "dtls"
                    case .firstPacketReceived: "packet"
                    case .firstAudioDecoded: "audio"
                    default: "\(event)"
                    }
                }
                #expect(kinds.first == "ice", "\(events)")
                #expect(kinds.firstIndex(of: "dtls")! < kinds.firstIndex(of: "audio")!, "\(events)")
                #expect(kinds.firstIndex(of: "packet")! < kinds.firstIndex(of: "audio")!, "\(events)")
                #expect(events.last == .closed)
                #expect(events.filter { $0 == .closed }.count == 1)
                #expect(log.failures.isEmpty)
            }
            #expect(pair.offererSink.isClosed && pair.answererSink.isClosed)
        }

        @Test("RFC 4733 digits from a muted sender arrive as digits, and the muted audio is silent")
        func dtmfWhileMuted() async throws {
            let pair = try await CallPair.connect()
            defer { pair.close() }
            pair.offerer.isMuted = true
            #expect(await pair.waitForAudio())
            #expect(pair.offerer.negotiated?.telephoneEventPT != nil)
            try pair.offerer.sendDTMF("147#")
            try pair.offerer.sendDTMF("*0D")
            #expect(await CallMediaTestSupport.wait(timeout: 10) { pair.answererLog.digits.count >= 7 })
            #expect(pair.answererLog.digits == "147#*0D")
            let heard = ToneReport(pair.answererSink.samples, expected: 440, seconds: 0.5)
            #expect(heard.rmsDBFS < -50, "muted sender still heard: \(heard)")
            #expect(pair.answerer.statistics().packetsReceived > 0)
            #expect(throws: CallMediaError.invalidDTMF(.invalidDigit("x"))) { try pair.offerer.sendDTMF("12x") }
        }

        @Test("sendDTMF throws when the peer did not negotiate telephone-event")
        func dtmfNotNegotiated() async throws {
            var answerer = CallMediaTestSupport.configuration()
            answerer.telephoneEvents = false
            let pair = try await CallPair.connect(answerer: answerer)
            defer { pair.close() }
            #expect(pair.offerer.negotiated?.telephoneEventPT == nil)
            #expect(throws: CallMediaError.dtmfNotNegotiated) { try pair.offerer.sendDTMF("1") }
        }

        @Test("A peer that closes sends RTCP BYE and close_notify: the other side reports peerClosed and stops sending")
        func peerClose() async throws {
            var offerer = CallMediaTestSupport.configuration()
            offerer.mediaTimeout = 1
            let pair = try await CallPair.connect(offerer: offerer)
            defer { pair.close() }
            #expect(await pair.waitForAudio())
            #expect(!pair.offerer.statistics().goodbyeReceived)
            pair.answerer.close()
            #expect(await CallMediaTestSupport.wait(timeout: 10) { pair.offerer.statistics().goodbyeReceived })
            #expect(await pair.offererLog.wait(for: .peerClosed, timeout: 10))
            let sent = pair.offerer.statistics().packetsSent
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(pair.offerer.statistics().packetsSent == sent, "the offerer kept sending after the peer's close_notify")
            #expect(pair.offererLog.failures.isEmpty)
            #expect(!pair.offererLog.events.contains(.mediaTimeout))
            #expect(pair.offererLog.events.filter { $0 == .peerClosed }.count == 1)
        }

        @Test("A peer that goes silent without closing is reported as a media timeout")
        func mediaTimeout() async throws {
            var offerer = CallMediaTestSupport.configuration()
            offerer.mediaTimeout = 1
            // The answerer is told to only receive; the offerer is told it sends: a silent peer.
            let pair = try await CallPair.connect(offerer: offerer,
                                                  tamperOffer: { $0.replacingOccurrences(of: "a=sendrecv", with: "a=sendonly") },
                                                  tamperAnswer: { $0.replacingOccurrences(of: "a=recvonly", with: "a=sendrecv") })
            defer { pair.close() }
            #expect(await pair.offererLog.wait(for: .mediaTimeout, timeout: 15))
            #expect(pair.offererLog.failures.isEmpty)
            #expect(pair.answerer.statistics().packetsSent == 0)
        }
    }
}
