#!/bin/sh
# ntfy push intake: follows an ntfy topic's JSON stream with curl and hands each message (the raw
# push JSON as the message body) to the agent. The push sender publishes the push as the body:
#   curl -d '{"id":"...","uuid":"...","handle":"1002"}' https://ntfy.sh/TOPIC
# Needs curl and jq (both Debian packages).
#
# Nothing is lost across reconnects and restarts: the id of the last message handed to the agent is
# kept in NTFY_SINCE_FILE, and every (re)connection asks ntfy for the messages after it (`since=`;
# ntfy caches messages for 12 h by default). The first run starts with new messages only. A push
# seen twice is harmless: the agent wakes once per call id (also across its restarts).
#
# Environment:
#   NTFY_TOPIC        topic to follow (required; pick a long random name on a public server)
#   NTFY_URL          server (default https://ntfy.sh)
#   NTFY_HEADER_FILE  optional file with extra request headers, e.g. "Authorization: Bearer tk_..."
#                     (read by curl, so the token never appears in argv)
#   NTFY_SINCE_FILE   where the last handled message id is kept
#                     (default $STATE_DIRECTORY, else ~/.cache, /wcs-agent-ntfy-TOPIC.since)
#   WCS_AGENT, WCS_AGENT_SOCKET: see deliver-pushes.sh
# The stream ends when the connection drops; the loop reconnects after 2 s.
set -u
: "${NTFY_TOPIC:?set NTFY_TOPIC to the ntfy topic the pushes are published on}"
agent=${WCS_AGENT:-wcs-agent}
url="${NTFY_URL:-https://ntfy.sh}/$NTFY_TOPIC/json"
since_file=${NTFY_SINCE_FILE:-${STATE_DIRECTORY:-${HOME:-/tmp}/.cache}/wcs-agent-ntfy-$NTFY_TOPIC.since}
mkdir -p "$(dirname "$since_file")"
tab=$(printf '\t')
while :; do
    since=$(cat "$since_file" 2>/dev/null)
    query=""
    [ -n "$since" ] && query="?since=$since"
    if [ -n "${NTFY_HEADER_FILE:-}" ]; then set -- -H "@$NTFY_HEADER_FILE"; else set --; fi
    # Stream lines: {"event":"open"|"keepalive"|"message",...,"id","message":"<push JSON>"}.
    curl -sSN --fail "$@" "$url$query" \
        | jq --unbuffered -r 'select(.event == "message") | "\(.id)\t\(.message // "" | gsub("[\r\n\t]"; " "))"' \
        | while IFS="$tab" read -r id payload; do
            # Exit 0: taken; 2: not a push (never will be); others (agent unreachable): try again.
            tries=0
            while :; do
                printf '%s\n' "$payload" | "$agent" reconnect --payload -
                status=$?
                [ "$status" -eq 0 ] || [ "$status" -eq 2 ] || [ "$tries" -ge 4 ] && break
                tries=$((tries + 1))
                sleep 1
            done
            [ "$status" -eq 0 ] || echo "ntfy-subscribe: wcs-agent reconnect exit $status for message $id" >&2
            printf '%s\n' "$id" > "$since_file.tmp" && mv "$since_file.tmp" "$since_file"
        done
    echo "ntfy-subscribe: stream from $url ended; reconnecting in 2 s" >&2
    sleep 2
done
