/// Positional-argument checks shared by the verbs' `parse` closures. Pure; throw `UsageError`.
public enum CLIArguments {
    /// No positional argument.
    @Sendable public static func none(_ parsed: ParsedArguments) throws -> NoArguments {
        if let extra = parsed.positional.first { throw UsageError("unexpected argument \"\(extra)\"") }
        return NoArguments()
    }

    /// At most one positional argument: the call.
    @Sendable public static func optionalCall(_ parsed: ParsedArguments) throws -> CallArguments {
        if parsed.positional.count > 1 { throw UsageError("unexpected argument \"\(parsed.positional[1])\"") }
        return CallArguments(callId: parsed.positional.first)
    }

    /// Exactly one positional argument; `missing` is the message when there is none.
    public static func one(_ parsed: ParsedArguments, _ missing: String) throws -> String {
        guard let first = parsed.positional.first else { throw UsageError(missing) }
        if parsed.positional.count > 1 { throw UsageError("unexpected argument \"\(parsed.positional[1])\"") }
        return first
    }
}
