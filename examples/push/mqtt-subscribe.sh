#!/bin/sh
# MQTT push intake: subscribes to a topic with mosquitto_sub (Debian: mosquitto-clients) and hands
# each message (the raw push JSON) to the agent. The push sender publishes the WCS push as is, e.g.
#   mosquitto_pub -h broker -t wcs/push/1001 -s      (push JSON on stdin)
#
# Environment:
#   MQTT_TOPIC   topic to subscribe to (required)
#   MQTT_HOST    broker host (default localhost)
#   MQTT_PORT    broker port (default 1883)
#   MQTT_OPTIONS extra mosquitto_sub options, e.g. "--cafile /etc/ssl/certs/ca.pem -u agent".
#                Keep the broker password out of argv: put "-P secret" in the options file
#                ~/.config/mosquitto_sub (mosquitto_sub reads it at start).
#   WCS_AGENT, WCS_AGENT_SOCKET: see deliver-pushes.sh
# mosquitto_sub exits when the broker goes away; the loop reconnects after 5 s (under systemd you
# may drop the loop and use Restart=always instead).
set -u
: "${MQTT_TOPIC:?set MQTT_TOPIC to the topic the pushes are published on}"
here=$(dirname "$0")
while :; do
    # shellcheck disable=SC2086  # MQTT_OPTIONS is a list of options
    mosquitto_sub -h "${MQTT_HOST:-localhost}" -p "${MQTT_PORT:-1883}" -q 1 -t "$MQTT_TOPIC" ${MQTT_OPTIONS:-} \
        | "$here/deliver-pushes.sh"
    echo "mqtt-subscribe: mosquitto_sub ended; resubscribing in 5 s" >&2
    sleep 5
done
