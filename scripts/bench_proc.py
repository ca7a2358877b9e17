"""Per-process and machine-wide CPU and memory readings from /proc, for `make bench`."""
import os
import time

TICK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid):
    """Resident set size of `pid` in MB (VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _machine_ticks():
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def loadavg():
    """The 1-minute load average."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


class Window:
    """CPU of some processes and of the whole machine over a time window.

    `start()`, wait, then `stop()` returns {pid: % of one core}, the machine's busy % of all its
    cores and the 1-minute load average at the end.
    """

    def __init__(self, pids):
        self.pids = [p for p in pids if p]

    def start(self):
        self.t0 = time.monotonic()
        self.cpu0 = {p: cpu_seconds(p) for p in self.pids}
        self.busy0, self.total0 = _machine_ticks()
        return self

    def stop(self):
        wall = time.monotonic() - self.t0
        per = {p: 100 * (cpu_seconds(p) - self.cpu0[p]) / wall for p in self.pids}
        busy, total = _machine_ticks()
        machine = 100 * (busy - self.busy0) / max(1, total - self.total0)
        return per, machine, loadavg()


def sample(pids, seconds):
    """Window over `seconds`: ({pid: CPU % of one core}, machine busy %, load average)."""
    window = Window(pids).start()
    time.sleep(seconds)
    return window.stop()


def percentile(values, fraction):
    """Nearest-rank quantile of `values` (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))]
