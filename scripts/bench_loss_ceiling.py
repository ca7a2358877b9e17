#!/usr/bin/python3
"""What concealment alone can reach: PESQ-WB of speech through Opus with 5 % random loss and a
perfect jitter buffer, with and without in-band FEC (run with the bench venv's python).

`.build/bench-venv/bin/python scripts/bench_loss_ceiling.py REF16K.wav [LOSS_PERCENT]` encodes the
16 kHz reference (e.g. the `speech-16k.wav` a `make bench` run leaves in its /tmp/wcs-bench-*
directory) at 48 kHz with libopus (ctypes), drops packets with the emulator's generator for
`seed=1` (two draws per datagram, as `wcsemu/impair.py`; RTCP ignored), decodes every slot in
time (no late packets, no delay changes) with libopus PLC, or with FEC from the next packet when
asked, and prints PESQ-WB for: an aiortc-1.4-like sender (stereo, automatic bitrate, no FEC), the
agent's own encoder settings (mono 32 kbit/s), and both with FEC on and used. Not part of `make
bench`: it explains the impaired figure's ceiling when the caller sends no FEC.
"""
import ctypes
import os
import random
import sys

import numpy
from pesq import pesq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pesq import _read_mono, _resample  # noqa: E402

OPUS = ctypes.CDLL("libopus.so.0")
OPUS.opus_encoder_create.restype = ctypes.c_void_p
OPUS.opus_decoder_create.restype = ctypes.c_void_p
SET_BITRATE, SET_INBAND_FEC, SET_PACKET_LOSS_PERC = 4002, 4012, 4014
VOIP = 2048


def _ctl(encoder, request, value):
    OPUS.opus_encoder_ctl(ctypes.c_void_p(encoder), ctypes.c_int(request), ctypes.c_int(value))


def run(ref16, channels, bitrate, fec, loss, use_fec, seed=1):
    """PESQ-WB and the number of lost packets for one sender setting and decoder strategy."""
    pcm = _resample(ref16, 16000, 48000).astype(numpy.int16)
    pcm = numpy.concatenate([pcm, numpy.zeros(960 * 5, numpy.int16)])
    error = ctypes.c_int()
    encoder = OPUS.opus_encoder_create(48000, channels, VOIP, ctypes.byref(error))
    if bitrate:
        _ctl(encoder, SET_BITRATE, bitrate)
    if fec:
        _ctl(encoder, SET_INBAND_FEC, 1)
        _ctl(encoder, SET_PACKET_LOSS_PERC, 10)
    decoder = OPUS.opus_decoder_create(48000, 1, ctypes.byref(error))
    out = ctypes.create_string_buffer(4000)
    packets = []
    for index in range(len(pcm) // 960):
        frame = pcm[index * 960:(index + 1) * 960]
        frame = numpy.ascontiguousarray(numpy.repeat(frame, 2) if channels == 2 else frame)
        length = OPUS.opus_encode(ctypes.c_void_p(encoder), frame.ctypes.data_as(ctypes.c_void_p), 960, out, 4000)
        packets.append(bytes(out.raw[:length]))
    rng = random.Random(f"{seed}:send")
    lost = []
    for _ in packets:
        lost.append(rng.random() * 100 < loss)
        rng.random()  # the delay draw
    samples = (ctypes.c_int16 * 960)()
    decoded = []
    for index, packet in enumerate(packets):
        if not lost[index]:
            OPUS.opus_decode(ctypes.c_void_p(decoder), packet, len(packet), samples, 960, 0)
        elif use_fec and index + 1 < len(packets) and not lost[index + 1]:
            following = packets[index + 1]
            OPUS.opus_decode(ctypes.c_void_p(decoder), following, len(following), samples, 960, 1)
        else:
            OPUS.opus_decode(ctypes.c_void_p(decoder), None, 0, samples, 960, 0)
        decoded.append(numpy.frombuffer(bytes(samples), numpy.int16).copy())
    OPUS.opus_encoder_destroy(ctypes.c_void_p(encoder))
    OPUS.opus_decoder_destroy(ctypes.c_void_p(decoder))
    degraded = _resample(numpy.concatenate(decoded).astype(numpy.float32), 48000, 16000)[:len(ref16)]
    return pesq(16000, ref16, degraded, "wb"), sum(lost)


def main():
    reference, _ = _read_mono(sys.argv[1])
    loss = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    for label, channels, bitrate, fec, use in (
            ("aiortc-like sender (stereo, auto bitrate), no FEC, PLC", 2, 0, False, False),
            ("aiortc-like sender with FEC on, FEC used", 2, 0, True, True),
            ("agent-like sender (mono 32 kbit/s, FEC on), PLC only", 1, 32000, True, False),
            ("agent-like sender (mono 32 kbit/s, FEC on), FEC used", 1, 32000, True, True)):
        clean, _ = run(reference, channels, bitrate, fec, 0, use)
        score, count = run(reference, channels, bitrate, fec, loss, use)
        print(f"{label}: PESQ-WB {clean:.2f} clean, {score:.2f} at {loss:g} % loss ({count} packets lost)")


if __name__ == "__main__":
    main()
