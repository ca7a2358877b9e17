#!/bin/sh
# ntfy push intake: follows an ntfy topic's JSON stream with curl and hands each message (the raw
# push JSON as the message body) to the agent. The push sender publishes the push as the body:
#   curl -d '{"id":"...","uuid":"...","handle":"1002"}' https://ntfy.sh/TOPIC
# Needs curl and jq (both Debian packages).
#
# Environment:
#   NTFY_TOPIC        topic to follow (required; pick a long random name on a public server)
#   NTFY_URL          server (default https://ntfy.sh)
#   NTFY_HEADER_FILE  optional file with extra request headers, e.g. "Authorization: Bearer tk_..."
#                     (read by curl, so the token never appears in argv)
#   WCS_AGENT, WCS_AGENT_SOCKET: see deliver-pushes.sh
# The stream ends when the connection drops; the loop reconnects after 5 s.
set -u
: "${NTFY_TOPIC:?set NTFY_TOPIC to the ntfy topic the pushes are published on}"
here=$(dirname "$0")
url="${NTFY_URL:-https://ntfy.sh}/$NTFY_TOPIC/json"
while :; do
    if [ -n "${NTFY_HEADER_FILE:-}" ]; then set -- -H "@$NTFY_HEADER_FILE"; else set --; fi
    # Stream lines: {"event":"open"|"keepalive"|"message",...,"message":"<push JSON>"}.
    curl -sSN --fail "$@" "$url" \
        | jq --unbuffered -r 'select(.event == "message") | .message // empty | gsub("[\r\n]"; " ")' \
        | "$here/deliver-pushes.sh"
    echo "ntfy-subscribe: stream from $url ended; reconnecting in 5 s" >&2
    sleep 5
done
