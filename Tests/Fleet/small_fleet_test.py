#!/usr/bin/python3
"""The small fleet test (part of `make test`): 20 real agents, the emulator restarts twice.

Runs scripts/fleet.py (the `make fleet` measurement) with 20 agents and checks what a fleet must never
do after a server restart: more than 2 connection attempts per agent (a refused token resume and a
login), an agent left behind, an agent not back within a bound, or a pushed agent not back.

Usage: /usr/bin/python3 Tests/Fleet/small_fleet_test.py [AGENT_BIN]   (default .build/debug/wcs-agent;
exit status 0 when every check passes)
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AGENTS = 20
#: Every agent back this long after the restart (today there is no spread: W = 0, so W + 5 s).
BACK_WITHIN = 5.0
MAX_ATTEMPTS_PER_AGENT = 2


def main():
    agent = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/wcs-agent")
    run = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/fleet.py"), agent, "-n", str(AGENTS),
                          "--json", "--timeout", "60"], capture_output=True, text=True, timeout=240)
    if run.returncode != 0:
        print(f"FAIL fleet run exited {run.returncode}:\n{run.stdout}\n{run.stderr}")
        return 1
    result = json.loads(run.stdout)
    failures = []
    for name in ("restart", "restart + push"):
        figures = result[name]
        attempts = figures["attempts per agent, max"]
        back = figures["all online after (s)"]
        if attempts > MAX_ATTEMPTS_PER_AGENT:
            failures.append(f"{name}: an agent made {attempts} attempts (at most {MAX_ATTEMPTS_PER_AGENT})")
        if figures["connection attempts"] > MAX_ATTEMPTS_PER_AGENT * AGENTS:
            failures.append(f"{name}: {figures['connection attempts']} attempts for {AGENTS} agents")
        if back > BACK_WITHIN:
            failures.append(f"{name}: all online only after {back} s (bound {BACK_WITHIN} s)")
    pushed = result["restart + push"]["push: agent online after (s)"]
    if isinstance(pushed, (int, float)) and pushed > BACK_WITHIN:
        failures.append(f"pushed agent online only after {pushed} s")
    if result["agents exited early"]:
        failures.append(f"agents exited: {result['agents exited early']}")
    print(json.dumps(result, indent=1))
    for failure in failures:
        print(f"FAIL {failure}")
    print("small fleet: " + ("PASS" if not failures else f"{len(failures)} failed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
