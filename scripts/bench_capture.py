"""Send-time jitter of a process's RTP, seen on the loopback interface (for `make bench`).

A packet socket (AF_PACKET, needs root or CAP_NET_RAW) on `lo` timestamps every outgoing UDP
datagram in the kernel (SO_TIMESTAMPNS), i.e. when the sender's sendto() ran: the receiver's
scheduling plays no part. RTP is recognised by its first byte (128..191, RFC 7983) and its payload
type (RTCP, 200..204, is skipped); the header is in the clear under SRTP.

For each stream (source port, SSRC) the n-th packet's slot is its RTP timestamp on the 48 kHz clock;
its lateness is its send time minus its slot, against the stream's own baseline (the 5th percentile
of those offsets). Reported: p99 of |inter-send interval - RTP interval| over all streams ("send-time
jitter p99", ms) and "late frames": packets sent 10 ms or more after their slot.
Runs in a thread of the bench driver; `stop()` returns the figures.
"""
import socket
import struct
import threading
import time

from bench_proc import percentile

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35
PACKET_OUTGOING = 4
LATE_SECONDS = 0.010
CLOCK = 48000.0


def udp_ports(pid):
    """Local UDP ports of the sockets process `pid` has open (IPv4 and IPv6)."""
    inodes = set()
    try:
        import os
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return set()
    ports = set()
    for table in ("udp", "udp6"):
        try:
            with open(f"/proc/{pid}/net/{table}") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[9] in inodes:
                        ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return ports


class SendJitterCapture:
    """Captures RTP leaving the given source ports on `lo` until stop()."""

    def __init__(self, ports):
        self.ports = set(ports)
        self.streams = {}
        self._stop = threading.Event()
        self.error = None
        try:
            self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            self.sock.bind(("lo", 0))
            self.sock.settimeout(0.2)
        except (PermissionError, OSError) as error:
            self.sock, self.error = None, f"no packet capture ({error}); run the bench as root"
            return
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                data, ancillary, _, address = self.sock.recvmsg(2048, 64)
            except socket.timeout:
                continue
            if address[2] != PACKET_OUTGOING or len(data) < 14 + 20 + 8 + 12:
                continue
            stamp = None
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanos = struct.unpack("qq", value[:16])
                    stamp = seconds + nanos / 1e9
            self._packet(data, stamp if stamp is not None else time.time())

    def _packet(self, frame, stamp):
        ethertype = struct.unpack("!H", frame[12:14])[0]
        if ethertype == 0x0800:
            header = (frame[14] & 0x0F) * 4
            if frame[14 + 9] != 17:
                return
            udp = 14 + header
        elif ethertype == 0x86DD:
            if frame[14 + 6] != 17:
                return
            udp = 14 + 40
        else:
            return
        source_port = struct.unpack("!H", frame[udp:udp + 2])[0]
        rtp = frame[udp + 8:]
        if source_port not in self.ports or len(rtp) < 12 or not 128 <= rtp[0] <= 191 or 200 <= rtp[1] <= 204:
            return
        timestamp, ssrc = struct.unpack("!II", rtp[4:12])
        self.streams.setdefault((source_port, ssrc), []).append((stamp, timestamp))

    def stop(self):
        """Ends the capture; returns {streams, packets, jitter_p99_ms, late, late_fraction} or {error}."""
        if self.sock is None:
            return {"error": self.error}
        self._stop.set()
        self.thread.join()
        self.sock.close()
        deviations, late, packets = [], 0, 0
        for samples in self.streams.values():
            if len(samples) < 10:
                continue
            samples.sort(key=lambda s: s[0])
            t0, ts0 = samples[0]
            offsets = [(t - t0) - ((ts - ts0) % 2**32) / CLOCK for t, ts in samples]
            baseline = percentile(offsets, 0.05)
            late += sum(1 for o in offsets if o - baseline >= LATE_SECONDS)
            packets += len(samples)
            for (a, ta), (b, tb) in zip(samples, samples[1:]):
                deviations.append(abs((b - a) - ((tb - ta) % 2**32) / CLOCK) * 1000)
        p99 = percentile(deviations, 0.99)
        return {"streams": sum(1 for s in self.streams.values() if len(s) >= 10), "packets": packets,
                "jitter_p99_ms": p99, "late": late, "late_fraction": late / packets if packets else None}
