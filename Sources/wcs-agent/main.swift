import AgentCore
import Foundation

// wcs-agent: a Linux client for a Flashphoner WCS-style server. See README.md.
let code = await CLI.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
