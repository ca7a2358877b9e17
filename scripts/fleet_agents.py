"""The agents of a fleet run (scripts/fleet.py): one `wcs-agent run` per SIP line, each with its own
config file, password file, state dir, control socket and log, all in one scratch directory."""
import os
import subprocess
import time

FIRST_LOGIN = 2001


def _private_file(path, text):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)


class FleetAgent:
    """One agent: its SIP login, its directory and (once started) its process."""

    def __init__(self, agent_bin, directory, login):
        self.agent_bin = agent_bin
        self.directory = directory
        self.login = login
        self.socket = os.path.join(directory, "control.sock")
        self.config = os.path.join(directory, "agent.conf")
        self.process = None

    def ctl(self, *verb):
        """Runs a client verb against this agent's control socket; returns the CompletedProcess."""
        return subprocess.run([self.agent_bin, *verb, "--socket", self.socket], capture_output=True, text=True)


class Fleet:
    """N agents with logins 2001.. and password "pw<login>" (users file for the emulator included)."""

    def __init__(self, agent_bin, work, count, agent_config_extra=""):
        self.agents = []
        self.users_file = os.path.join(work, "users")
        users = []
        for index in range(count):
            login = str(FIRST_LOGIN + index)
            directory = os.path.join(work, f"agent-{login}")
            os.makedirs(directory, mode=0o700)
            agent = FleetAgent(agent_bin, directory, login)
            _private_file(os.path.join(directory, "sip-password"), f"pw{login}\n")
            users.append(f"{login}:pw{login}\n")
            self.agents.append(agent)
        _private_file(self.users_file, "".join(users))
        self.extra = agent_config_extra.replace("\\n", "\n")
        self.logins = [a.login for a in self.agents]

    def start(self, url):
        """Writes every agent's config and starts them all; returns the processes."""
        for agent in self.agents:
            _private_file(agent.config, (
                f"[server]\nurl = {url}\n\n[sip]\nlogin = {agent.login}\npassword_file = sip-password\n\n"
                f"[agent]\nstate_dir = state\nsocket = control.sock\nlog_level = notice\n{self.extra}\n\n"
                f"[audio]\nsink = null\n"))
            agent.process = subprocess.Popen(
                [agent.agent_bin, "run", "--config", agent.config], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(agent.directory, "agent.log"), "w"))
        return [a.process for a in self.agents]

    def reconnect(self, agent):
        """What a push handler runs: `wcs-agent reconnect` (does not wait for it to finish)."""
        subprocess.Popen([agent.agent_bin, "reconnect", "--socket", agent.socket],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def memory_mb(self):
        """(sum of VmRSS, sum of PSS) of the running agents, in MB."""
        rss = pss = 0
        for agent in self.agents:
            pid = agent.process.pid
            with open(f"/proc/{pid}/status") as f:
                rss += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
            with open(f"/proc/{pid}/smaps_rollup") as f:
                pss += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        return rss / 1024, pss / 1024

    def normal_wake(self, cport, control):
        """The first agent sleeps, then `reconnect`: seconds until the emulator sees it attached again."""
        agent = self.agents[0]

        def connected():
            sessions = control(cport, "GET", f"/sessions?login={agent.login}")
            return bool(sessions) and sessions[-1]["connected"]
        if agent.ctl("sleep").returncode != 0:
            raise SystemExit(f"wcs-agent sleep failed for {agent.login}")
        deadline = time.monotonic() + 10
        while connected():
            if time.monotonic() > deadline:
                raise SystemExit("agent did not go to sleep")
            time.sleep(0.01)
        start = time.time()
        self.reconnect(agent)
        while not connected():
            if time.time() - start > 10:
                raise SystemExit("agent did not wake")
            time.sleep(0.002)
        return time.time() - start
