import CSRTP

/// Process-wide libsrtp initialisation.
enum SRTPLibrary {
    /// The status of the one `srtp_init()` call of this process. Swift runs a static `let`
    /// initializer exactly once, thread-safely, on first use.
    private static let initStatus: srtp_err_status_t = srtp_init()

    /// Runs `srtp_init()` on first use; throws if it failed.
    static func ensureInitialized() throws(SRTPError) {
        let status = initStatus
        guard status == srtp_err_status_ok else { throw SRTPError(status: status) }
    }
}
