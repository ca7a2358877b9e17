/// Whether a failed SIP registration is a definite refusal of our credentials (stop retrying, tell the
/// operator) or may be transient (retry with backoff: the registrar was slow, unreachable or busy).
///
/// Definite: the registrar said the account or password is wrong: `AUTHENTICATION_FAIL` (protocol doc
/// §4, RegistrationStatusEvent), `USER_NOT_AVAILABLE` (no such user), or a SIP 401/403/404 named in the
/// info text. Everything else may pass: `CONNECTION_ERROR`, `REGISTER_EXPIRE`, `SIP_PORTS_BUSY`,
/// `TOO_MANY_REGISTER_ATTEMPTS`, `UNREGISTERED`, unknown statuses, and no reply at all (a timeout).
/// A wrong guess here costs little on the transient side (a retry every backoff cap) and a deaf
/// device on the other, so only the named refusals stop.
public enum RegistrationRefusal {
    static let definiteStatuses: Set<String> = ["AUTHENTICATION_FAIL", "USER_NOT_AVAILABLE"]

    /// True when `status`/`info` name a refusal of our credentials.
    public static func isDefinite(status: String?, info: String?) -> Bool {
        if let status, definiteStatuses.contains(status.uppercased()) { return true }
        let text = "\(status ?? "") \(info ?? "")".lowercased()
        let refusals = ["401 ", "403 ", "404 ", "unauthorized", "forbidden", "authentication failed", "not found"]
        return refusals.contains { (text + " ").contains($0) }
    }
}
