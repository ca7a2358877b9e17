// Fuzz harness: the datagram demux of a call's ICE transport (AudioRTP `DatagramKind`, RFC 7983)
// and what the receive path then does with RTP and RTCP: the SRTP/SRTCP header checks,
// authentication and decryption (AudioPipe/SRTP), then the RTP/RTCP parsers. STUN is handled by
// libnice and DTLS by OpenSSL, so their datagrams stop at the demux. Runs on libFuzzer's one
// thread; built by scripts/fuzz.py.

import Foundation
@testable import AudioPipe
import MediaTestSupport
import AudioRTP

private let keyA: [UInt8] = Array(0..<16)
private let keyB: [UInt8] = Array(16..<32)

/// Two ends of a call: `sender` protects with key A, `receiver` unprotects with key A.
private func srtpPair(_ profile: SRTPProfile) -> (sender: SRTPSession, receiver: SRTPSession)? {
    let saltA = Array(repeating: UInt8(0xA5), count: profile.saltLength)
    let saltB = Array(repeating: UInt8(0x5A), count: profile.saltLength)
    guard let sender = try? SRTPSession(profile: profile, localKey: keyA, localSalt: saltA, remoteKey: keyB, remoteSalt: saltB),
          let receiver = try? SRTPSession(profile: profile, localKey: keyB, localSalt: saltB, remoteKey: keyA, remoteSalt: saltA)
    else { return nil }
    return (sender, receiver)
}

/// One input is one datagram off the wire. Its last byte picks the SRTP profile. Checks: nothing
/// traps; both classify entry points agree; a forged (unauthenticated) SRTP datagram is refused;
/// what SRTP protects, the other end unprotects to the same bytes, which then parse as the
/// plain datagram does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDatagramDemux(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let datagram = FuzzInput(data, size).all
    let kind = DatagramKind.classify(datagram)
    let viaPointer = datagram.withUnsafeBytes { DatagramKind.classify($0) }
    fuzzCheck(kind == viaPointer, "classify([UInt8]) \(kind) != classify(pointer) \(viaPointer)")
    fuzzCheck(kind == DatagramKind.classify(firstByte: datagram.first ?? 0, secondByte: datagram.count > 1 ? datagram[1] : nil)
              || datagram.isEmpty, "classify by bytes differs from classify by first bytes")

    let profile: SRTPProfile = (datagram.last ?? 0) & 1 == 0 ? .aes128CmSha1_80 : .aeadAes128Gcm
    switch kind {
    case .rtp:
        guard let (sender, receiver) = srtpPair(profile) else {
            fuzzCheck(false, "SRTP sessions could not be made")
            return 0
        }
        _ = try? RTPHeader.parse(receiver.unprotectRTP(datagram))
        let plain = (try? RTPHeader.parse(datagram)) != nil
        guard let protected = try? sender.protectRTP(datagram) else {
            fuzzCheck(RTPHeaderLength.ofRTP(datagram) == nil, "SRTP refused an RTP packet with a whole header")
            return 0
        }
        do {
            let back = try receiver.unprotectRTP(protected)
            fuzzCheck(back == datagram, "unprotectRTP(protectRTP(p)) != p")
            fuzzCheck(((try? RTPHeader.parse(back)) != nil) == plain, "RTP parses differently after SRTP")
        } catch {
            fuzzCheck(false, "unprotectRTP refused what protectRTP made: \(error)")
        }
    case .rtcp:
        guard let (sender, receiver) = srtpPair(profile) else {
            fuzzCheck(false, "SRTP sessions could not be made")
            return 0
        }
        _ = try? RTCPPacket.parseCompound(receiver.unprotectRTCP(datagram))
        let plain = try? RTCPPacket.parseCompound(datagram)
        guard let protected = try? sender.protectRTCP(datagram) else {
            fuzzCheck(!RTPHeaderLength.isRTCP(datagram), "SRTCP refused an RTCP packet with a whole header")
            return 0
        }
        do {
            let back = try receiver.unprotectRTCP(protected)
            fuzzCheck(back == datagram, "unprotectRTCP(protectRTCP(p)) != p")
            fuzzCheck((try? RTCPPacket.parseCompound(back)) == plain, "RTCP parses differently after SRTCP")
        } catch {
            fuzzCheck(false, "unprotectRTCP refused what protectRTCP made: \(error)")
        }
    case .stun, .zrtp, .dtls, .turnChannel, .unknown:
        break
    }
    return 0
}
