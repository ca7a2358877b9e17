@testable import AgentCore
import Testing

@Test func versionIsSet() { #expect(!AgentCore.version.isEmpty) }
