#!/bin/sh
# Reads raw WCS pushes from standard input, one JSON object per line, and hands each one to the
# agent with `wcs-agent reconnect --payload -`. The agent wakes once per call id, rings the call if
# it is still ringing, and records it as missed when it ended before the session came back.
# A process per push costs a few ms before the agent starts waking; where the receiver can reach
# the agent over HTTP, the webhook (webhook-send.sh, README.md) is the low-latency wake.
#
# Environment:
#   WCS_AGENT         the wcs-agent executable (default: wcs-agent from PATH)
#   WCS_AGENT_SOCKET  the daemon's control socket (default: $RUNTIME_DIRECTORY/control.sock,
#                     else /run/wcs-agent/control.sock)
set -u
agent=${WCS_AGENT:-wcs-agent}
while IFS= read -r payload; do
    case $payload in
        *[![:space:]]*) ;;
        *) continue ;;  # blank line (keepalives of some transports)
    esac
    if ! printf '%s\n' "$payload" | "$agent" reconnect --payload -; then
        echo "deliver-pushes: wcs-agent reconnect failed (exit $?) for one push" >&2
    fi
done
