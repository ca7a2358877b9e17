#!/usr/bin/python3
"""Writes seeds for the rtp, rtcp, datagram-demux and telephone-event harnesses, made with
aiortc's RTP/RTCP serializers (an implementation independent of ours; Debian's python3-aiortc).

Usage: /usr/bin/python3 Tests/Fuzz/seeds/make_media_seeds.py
"""
import os
import struct


from aiortc.rtp import (HeaderExtensionsMap, RtcpByePacket, RtcpPsfbPacket, RtcpReceiverInfo, RtcpRrPacket,
                        RtcpRtpfbPacket, RtcpSdesPacket, RtcpSenderInfo, RtcpSourceInfo, RtcpSrPacket, RtpPacket)
from aiortc.rtcrtpparameters import RTCRtpHeaderExtensionParameters, RTCRtpParameters

FUZZ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def write(harness, name, data):
    directory = os.path.join(FUZZ, harness, "corpus")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def rtp_packets():
    extensions = HeaderExtensionsMap()
    extensions.configure(RTCRtpParameters(headerExtensions=[
        RTCRtpHeaderExtensionParameters(id=1, uri="urn:ietf:params:rtp-hdrext:sdes:mid"),
        RTCRtpHeaderExtensionParameters(id=3, uri="http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"),
        RTCRtpHeaderExtensionParameters(id=4, uri="urn:ietf:params:rtp-hdrext:ssrc-audio-level"),
    ]))
    opus = RtpPacket(payload_type=111, marker=1, sequence_number=65535, timestamp=4294967000, ssrc=0x1234ABCD,
                     payload=bytes(range(60)))
    plain = opus.serialize()
    opus.extensions.mid = "0"
    opus.extensions.abs_send_time = 0x123456
    opus.extensions.audio_level = (True, 42)
    with_extensions = opus.serialize(extensions)
    csrcs = RtpPacket(payload_type=0, sequence_number=7, timestamp=160, ssrc=1, payload=b"\xff" * 160)
    csrcs.csrc = [0x11111111, 0x22222222, 0x33333333]
    padded = RtpPacket(payload_type=8, sequence_number=8, timestamp=320, ssrc=1, payload=b"\xd5" * 160)
    padded.padding_size = 4
    dtmf = RtpPacket(payload_type=101, marker=1, sequence_number=9, timestamp=480, ssrc=1,
                     payload=bytes([5, 0x0A, 0x00, 0xA0]))
    dtmf_end = RtpPacket(payload_type=101, sequence_number=10, timestamp=480, ssrc=1, payload=bytes([5, 0x8A, 0x03, 0x20]))
    return {"opus": plain, "opus-extensions": with_extensions, "pcmu-csrcs": csrcs.serialize(),
            "pcma-padding": padded.serialize(), "dtmf-start": dtmf.serialize(), "dtmf-end": dtmf_end.serialize()}


def rtcp_packets():
    report = RtcpReceiverInfo(ssrc=0x1234ABCD, fraction_lost=12, packets_lost=-3, highest_sequence=70000,
                              jitter=80, lsr=0x11223344, dlsr=65536)
    sr = RtcpSrPacket(ssrc=0xCAFEBABE, sender_info=RtcpSenderInfo(ntp_timestamp=0xE5A1B2C3D4E5F607,
                                                                  rtp_timestamp=123456, packet_count=50,
                                                                  octet_count=8000), reports=[report])
    rr = RtcpRrPacket(ssrc=0xCAFEBABE, reports=[report, report])
    sdes = RtcpSdesPacket(chunks=[RtcpSourceInfo(ssrc=0xCAFEBABE, items=[(1, b"wcs-agent"), (2, b"name")])])
    bye = RtcpByePacket(sources=[0xCAFEBABE, 1])
    pli = RtcpPsfbPacket(fmt=1, ssrc=1, media_ssrc=2)
    nack = RtcpRtpfbPacket(fmt=1, ssrc=1, media_ssrc=2, lost=[5, 7, 20])
    return {"sr-sdes": bytes(sr) + bytes(sdes), "rr-sdes-bye": bytes(rr) + bytes(sdes) + bytes(bye),
            "sr": bytes(sr), "pli": bytes(pli), "nack": bytes(nack), "bye": bytes(bye)}


def main():
    packets = rtp_packets()
    for name, data in packets.items():
        write("rtp", "aiortc-" + name, data)
        write("datagram-demux", "aiortc-rtp-" + name, data)
    for name, data in rtcp_packets().items():
        write("rtcp", "aiortc-" + name, data)
        write("datagram-demux", "aiortc-rtcp-" + name, data)
    # Other protocols on the same transport: a STUN binding request, a DTLS ClientHello record
    # header, a TURN ChannelData header (the demux only classifies them).
    write("datagram-demux", "stun-binding", struct.pack("!HHI", 1, 0, 0x2112A442) + bytes(12))
    write("datagram-demux", "dtls-record", bytes([22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]) + bytes(16))
    write("datagram-demux", "turn-channel", struct.pack("!HH", 0x4000, 4) + b"abcd")
    # telephone-event: records of length | sequence | timestamp | marker | payload (see its harness).
    def record(seq, ts, marker, payload):
        return bytes([len(payload)]) + struct.pack("!HIB", seq, ts, marker) + payload
    press = b"".join(record(10 + i, 480, 1 if i == 0 else 0, bytes([5, 0x0A | (0x80 if i >= 3 else 0)]) + struct.pack("!H", 160 * (i + 1)))
                     for i in range(6))
    write("telephone-event", "key-5-with-repeated-end", press)
    digits = b"".join(record(100 + i, 1000 * i, 1, bytes([i, 0x8A, 3, 32])) for i in range(17))
    write("telephone-event", "every-event", digits)
    reordered = record(9, 500, 0, bytes([1, 10, 0, 80])) + record(8, 400, 1, bytes([2, 10, 0, 80])) + \
        record(7, 300, 0, bytes([3, 0x8A, 0, 80]))
    write("telephone-event", "reordered", reordered)
    long_event = record(1, 0, 1, bytes([4, 10, 0xFF, 0xFF])) + record(2, 0xFFFF, 0, bytes([4, 10, 0, 160]))
    write("telephone-event", "long-event-segments", long_event)


main()
