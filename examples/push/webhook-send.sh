#!/bin/sh
# Sends one raw push (JSON on standard input) to the agent's webhook (`[push] listen`), with the
# shared secret in the X-WCS-Push-Secret header. Use it as the push command of whatever receives
# the pushes, e.g. a WCS REST hook or a relay on another host reached through an SSH tunnel.
# The webhook is the low-latency wake: no process starts on the agent's side (README.md has figures).
#
# Environment:
#   WCS_PUSH_URL          webhook URL (default http://127.0.0.1:8089/push)
#   WCS_PUSH_SECRET_FILE  file holding the shared secret (required; the same file as the agent's
#                         [push] secret_file). The secret goes to curl through a config on a file
#                         descriptor, never through argv.
#   WCS_PUSH_ATTEMPTS     tries in all (default 5). A 503 (webhook busy), 408, 504 or a connection
#                         error is retried after 0.2, 0.4, 0.8, ... s; any other answer is final.
# Exit status: curl's (22 when the webhook refused the push, e.g. 401 for a wrong secret; 7 when
# the agent could not be reached).
set -u
: "${WCS_PUSH_SECRET_FILE:?set WCS_PUSH_SECRET_FILE to the shared secret file}"
secret=
IFS= read -r secret < "$WCS_PUSH_SECRET_FILE" || [ -n "$secret" ] || { echo "webhook-send: empty secret file" >&2; exit 2; }
# Escape \ and " for the curl config syntax (printf is a shell builtin: nothing reaches argv).
secret=$(printf '%s' "$secret" | sed 's/[\\"]/\\&/g')
# Keep the push: stdin can be read only once, and a retry sends it again.
push=$(mktemp) || exit 2
answer=$(mktemp) || exit 2
trap 'rm -f "$push" "$answer"' EXIT
cat > "$push"
attempts=${WCS_PUSH_ATTEMPTS:-5}
delay=0.2
attempt=1
while :; do
    status=$(curl -sS --retry 0 -o "$answer" -w '%{http_code}' -K /dev/fd/3 -H 'Content-Type: application/json' \
        --data-binary @"$push" "${WCS_PUSH_URL:-http://127.0.0.1:8089/push}" 3<<CONFIG
header = "X-WCS-Push-Secret: $secret"
CONFIG
    )
    code=$?
    case "$code:$status" in
        0:2??) cat "$answer"; exit 0 ;;
        0:503|0:408|0:504|7:*|52:*|56:*) ;;   # busy, timed out, or could not connect: retry
        0:*) cat "$answer"; exit 22 ;;        # refused: print the answer, like curl --fail-with-body
        *) exit "$code" ;;
    esac
    if [ "$attempt" -ge "$attempts" ]; then
        echo "webhook-send: giving up after $attempt attempts (last: ${status:-no answer})" >&2
        [ "$code" -eq 0 ] && { cat "$answer"; exit 22; }
        exit "$code"
    fi
    sleep "$delay"
    delay=$(awk "BEGIN { print $delay * 2 }")
    attempt=$((attempt + 1))
done
