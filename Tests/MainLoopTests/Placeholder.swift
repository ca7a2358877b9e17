@testable import MainLoop
import Testing

@Test func moduleLoads() { _ = MainLoopModule.self }
