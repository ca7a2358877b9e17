import SystemSupport
import AgentControl
import Foundation
import Testing

/// The front's environment read from `environ` is what Foundation reads, and it follows changes.
@Suite(.serialized) struct ProcessEnvironmentTests {
    @Test func itIsWhatProcessInfoSees() {
        #expect(ProcessEnvironment.current == ProcessInfo.processInfo.environment)
    }

    @Test func valuesWithEqualsSignsAndLaterChangesAreRead() {
        setenv("WCS_AGENT_TEST_ENVIRONMENT", "a=b=c", 1)
        #expect(ProcessEnvironment.current["WCS_AGENT_TEST_ENVIRONMENT"] == "a=b=c")
        unsetenv("WCS_AGENT_TEST_ENVIRONMENT")
        #expect(ProcessEnvironment.current["WCS_AGENT_TEST_ENVIRONMENT"] == nil)
    }
}
