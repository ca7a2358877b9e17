import TestSupport
@testable import AgentCore
import Testing

@Suite struct ParsedArgumentsTests {
    let spec = ArgumentSpec(valueFlags: ["--server", "--count"], booleanFlags: ["--verbose", "--no-verbose"],
                            refusedFlags: ["--secret": "use a file"])

    @Test func splitsPositionalArgumentsAndBothValueForms() throws {
        let parsed = try ParsedArguments(["call", "--server", "ws://a", "100", "--count=3", "--verbose", "-", "x"], spec: spec)
        #expect(parsed.positional == ["call", "100", "-", "x"])
        #expect(parsed.value("--server") == "ws://a")
        #expect(parsed.value("--count") == "3")
        #expect(parsed.has("--verbose"))
        #expect(!parsed.has("--no-verbose"))
    }

    @Test func lastOccurrenceWins() throws {
        let parsed = try ParsedArguments(["--server=a", "--verbose", "--server", "b", "--no-verbose"], spec: spec)
        #expect(parsed.value("--server") == "b")
        #expect(parsed.values("--server") == ["a", "b"])
        #expect(parsed.lastFlag(among: ["--verbose", "--no-verbose"]) == "--no-verbose")
    }

    @Test func doubleDashEndsFlags() throws {
        let parsed = try ParsedArguments(["--", "--server", "-x"], spec: spec)
        #expect(parsed.positional == ["--server", "-x"])
        #expect(parsed.occurrences.isEmpty)
    }

    @Test func emptyInlineValueIsKept() throws {
        let parsed = try ParsedArguments(["--server="], spec: spec)
        #expect(parsed.value("--server") == "")
    }

    @Test func unknownFlagIsAnErrorWithoutItsValue() {
        #expect(throws: UsageError("unknown option --bogus")) { try ParsedArguments(["--bogus=hidden"], spec: spec) }
        #expect(throws: UsageError("unknown option -v")) { try ParsedArguments(["-v"], spec: spec) }
    }

    @Test func missingValueIsAnError() {
        #expect(throws: UsageError("--server needs a value")) { try ParsedArguments(["--server"], spec: spec) }
        #expect(throws: UsageError("--server needs a value")) { try ParsedArguments(["--server", "--verbose"], spec: spec) }
    }

    @Test func booleanFlagRejectsAValue() {
        #expect(throws: UsageError("--verbose does not take a value")) { try ParsedArguments(["--verbose=yes"], spec: spec) }
    }

    @Test func refusedFlagIsRejectedInEveryForm() {
        for arguments in [["--secret"], ["--secret=abc"], ["--secret", "abc"]] {
            #expect(throws: UsageError("--secret is not accepted: use a file")) { try ParsedArguments(arguments, spec: spec) }
        }
    }

    @Test func mergedSpecsAcceptBothSetsOfFlags() throws {
        let merged = spec.merging(ArgumentSpec(valueFlags: ["--to"], booleanFlags: ["--wait"]))
        let parsed = try ParsedArguments(["--to", "100", "--wait", "--server", "s"], spec: merged)
        #expect(parsed.value("--to") == "100")
        #expect(parsed.has("--wait"))
        #expect(parsed.value("--server") == "s")
    }
}
