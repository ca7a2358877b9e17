import AgentCore
print("wcs-agent \(AgentCore.version)")
