import AgentControl
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// wcs-agent: the lean front of the Linux client for a Flashphoner WCS-style server (README.md).
// Client verbs talk to the daemon over its control socket from here; everything else is the full
// binary, wcs-agentd, exec'd with the same argv and environment.
exit(LeanFront.main(CommandLine.arguments, environment: ProcessEnvironment.current))
