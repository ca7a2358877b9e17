#!/bin/sh
# Sends one raw push (JSON on standard input) to the agent's webhook (`[push] listen`), with the
# shared secret in the X-WCS-Push-Secret header. Use it as the push command of whatever receives
# the pushes, e.g. a WCS REST hook or a relay on another host reached through an SSH tunnel.
#
# Environment:
#   WCS_PUSH_URL          webhook URL (default http://127.0.0.1:8089/push)
#   WCS_PUSH_SECRET_FILE  file holding the shared secret (required; the same file as the agent's
#                         [push] secret_file). The secret goes to curl through a config on a file
#                         descriptor, never through argv.
# Exit status: curl's (22 when the webhook refused the push, e.g. 401 for a wrong secret).
set -u
: "${WCS_PUSH_SECRET_FILE:?set WCS_PUSH_SECRET_FILE to the shared secret file}"
secret=
IFS= read -r secret < "$WCS_PUSH_SECRET_FILE" || [ -n "$secret" ] || { echo "webhook-send: empty secret file" >&2; exit 2; }
# Escape \ and " for the curl config syntax (printf is a shell builtin: nothing reaches argv).
secret=$(printf '%s' "$secret" | sed 's/[\\"]/\\&/g')
curl -sS --fail-with-body -K /dev/fd/3 -H 'Content-Type: application/json' --data-binary @- \
    "${WCS_PUSH_URL:-http://127.0.0.1:8089/push}" 3<<CONFIG
header = "X-WCS-Push-Secret: $secret"
CONFIG
