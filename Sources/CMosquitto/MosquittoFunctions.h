#ifndef CMOSQUITTO_FUNCTIONS_H
#define CMOSQUITTO_FUNCTIONS_H

/*
 * The libmosquitto functions the loader resolves and the forwarders define, as X-macro lists.
 * Private to the CMosquitto target. Adding one the Swift code calls: one line here (the compiler
 * then checks it against the prototype in <mosquitto.h>, and the loader requires the symbol).
 */

#include "include/CMosquitto.h"

/* X(return type, name, (parameters), (arguments), value returned without the library) */
#define CMOSQUITTO_RESULT_FUNCTIONS(X) \
    X(int, mosquitto_lib_init, (void), (), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_lib_version, (int *major, int *minor, int *revision), (major, minor, revision), 0) \
    X(struct mosquitto *, mosquitto_new, (const char *id, bool clean_session, void *obj), (id, clean_session, obj), NULL) \
    X(int, mosquitto_threaded_set, (struct mosquitto *mosq, bool threaded), (mosq, threaded), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_int_option, (struct mosquitto *mosq, enum mosq_opt_t option, int value), (mosq, option, value), \
      MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_username_pw_set, (struct mosquitto *mosq, const char *username, const char *password), \
      (mosq, username, password), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_will_set, (struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain), \
      (mosq, topic, payloadlen, payload, qos, retain), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_tls_set, \
      (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile, \
       int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)), \
      (mosq, cafile, capath, certfile, keyfile, pw_callback), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_tls_opts_set, (struct mosquitto *mosq, int cert_reqs, const char *tls_version, const char *ciphers), \
      (mosq, cert_reqs, tls_version, ciphers), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_tls_insecure_set, (struct mosquitto *mosq, bool value), (mosq, value), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_connect_async, (struct mosquitto *mosq, const char *host, int port, int keepalive), \
      (mosq, host, port, keepalive), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_reconnect_async, (struct mosquitto *mosq), (mosq), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_disconnect, (struct mosquitto *mosq), (mosq), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_subscribe, (struct mosquitto *mosq, int *mid, const char *sub, int qos), (mosq, mid, sub, qos), \
      MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_publish, \
      (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain), \
      (mosq, mid, topic, payloadlen, payload, qos, retain), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_loop_read, (struct mosquitto *mosq, int max_packets), (mosq, max_packets), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_loop_write, (struct mosquitto *mosq, int max_packets), (mosq, max_packets), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_loop_misc, (struct mosquitto *mosq), (mosq), MOSQ_ERR_NOT_SUPPORTED) \
    X(int, mosquitto_socket, (struct mosquitto *mosq), (mosq), -1) \
    X(bool, mosquitto_want_write, (struct mosquitto *mosq), (mosq), false) \
    X(const char *, mosquitto_strerror, (int mosq_errno), (mosq_errno), "libmosquitto is not loaded") \
    X(const char *, mosquitto_connack_string, (int connack_code), (connack_code), "libmosquitto is not loaded")

/* X(name, (parameters), (arguments)): functions without a result (without the library: nothing). */
#define CMOSQUITTO_VOID_FUNCTIONS(X) \
    X(mosquitto_destroy, (struct mosquitto *mosq), (mosq)) \
    X(mosquitto_connect_callback_set, (struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)), \
      (mosq, on_connect)) \
    X(mosquitto_disconnect_callback_set, (struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int)), \
      (mosq, on_disconnect)) \
    X(mosquitto_message_callback_set, \
      (struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *)), \
      (mosq, on_message)) \
    X(mosquitto_publish_callback_set, (struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int)), \
      (mosq, on_publish)) \
    X(mosquitto_subscribe_callback_set, \
      (struct mosquitto *mosq, void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *)), \
      (mosq, on_subscribe)) \
    X(mosquitto_log_callback_set, (struct mosquitto *mosq, void (*on_log)(struct mosquitto *, void *, int, const char *)), \
      (mosq, on_log))

#endif
