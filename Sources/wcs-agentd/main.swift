import AgentTools
import Glibc

// wcs-agentd: the full wcs-agent binary (daemon, prompt, doctor, history and every client verb),
// which the lean `wcs-agent` front execs. See README.md.
let code = await CLI.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
