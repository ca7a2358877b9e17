# wcs-agent: build, test, demo and bench entry points.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

APT_PACKAGES := pkg-config libwebsockets-dev libglib2.0-dev libnice-dev libopus-dev libssl-dev \
	libsrtp2-dev libsoxr-dev python3 python3-websockets python3-aiortc openssl espeak-ng \
	curl jq mosquitto mosquitto-clients
# The C++ runtime is linked statically into wcs-agent and wcs-agentd (packaging/static-libstdc++): libstdc++.a.
APT_PACKAGES += libstdc++-12-dev
# systemd-analyze verifies examples/systemd/wcs-agent.service in the tests.
APT_PACKAGES += systemd
# strace watches the real daemon's fsync calls (DurableWritesTests).
APT_PACKAGES += strace
# make deb: dpkg-shlibdeps (dpkg-dev), strip (binutils), man pages checked by lintian (make deb-lint);
# PackageInstallTests render the installed man page with man (man-db).
APT_PACKAGES += dpkg-dev binutils man-db
# TURNRelayTests run calls through a real coturn (turnserver) on loopback.
APT_PACKAGES += coturn
# NetworkChangeTests put the agent in a network namespace with a veth pair (ip netns, as root).
APT_PACKAGES += iproute2
# STUNBehindNATTests put the agent on a private LAN behind an nft MASQUERADE router (namespaces, as root).
APT_PACKAGES += nftables
# libmosquitto: the headers of the native MQTT push intake's client library, opened on first use (dlopen, Sources/CMosquitto).
APT_PACKAGES += libmosquitto-dev
# alsa: the headers of alsa-lib, which sources and sinks open on first use (dlopen, Sources/CALSA); ALSAIOTests use its file and null plugins (no card needed).
APT_PACKAGES += libasound2-dev
# ALSAPulseAudioTests: a private PulseAudio (null sink) through ALSA's pulse plugin: a clocked device that underruns.
APT_PACKAGES += pulseaudio libasound2-plugins
# MetricsTests check the exposition with promtool and scrape the daemon with a real Prometheus.
APT_PACKAGES += prometheus
# Voice processing (Sources/CEchoCancel): speexdsp and webrtc-audio-processing 0.3, headers to build, libraries
# opened on first call (dlopen); numpy for the echo harness (Benchmarks/echo) that make test runs short.
APT_PACKAGES += libspeexdsp-dev libwebrtc-audio-processing-dev python3-numpy
# make bench only (CI does not run it): a venv for PyPI's `pesq`, which builds a C extension.
BENCH_APT_PACKAGES := python3-venv python3-dev gcc
SWIFT_FLAGS ?=
QUICK ?=
VERSION := $(shell sed -n 's/.*static let version = "\([^"]*\)".*/\1/p' Sources/AgentControl/AgentVersion.swift)
DEB := $(CURDIR)/.build-deb/wcs-agent_$(VERSION)_$(shell dpkg --print-architecture).deb

.PHONY: deps bench-deps bench-build bench-profile build release deb deb-lint check test demo bench fleet mutate fuzz fuzz-build clean

# Installs the Debian packages the build and tests need; does nothing when all are present.
# No Recommends: everything a test uses is listed here (prometheus alone would pull node-exporter).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends $$missing; \
	fi

build: deps
	swift build $(SWIFT_FLAGS)

release: deps
	swift build -c release $(SWIFT_FLAGS)

# The Debian package (.build-deb/wcs-agent_VERSION_ARCH.deb): a release build of the wcs-agent
# product with the Swift runtime linked in, in its own scratch path (.build-deb) so the debug
# build in .build stays valid. Depends computed by dpkg-shlibdeps (+ libnice10, dlopen'd). See packaging/README.md.
deb: deps
	packaging/deb/build-deb.sh

# lintian on the package (installs lintian; not part of make test: it takes a minute).
deb-lint: deb
	@dpkg-query -W -f='$${Status}' lintian 2>/dev/null | grep -q "install ok installed" || \
		{ SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; $$SUDO apt-get install -y --no-install-recommends lintian; }
	lintian --fail-on error --info $(DEB)

# Two test tiers (scripts/test_tiers.py says which target is in which, and where a new test goes).
# `make check`: the fast tier, in-process tests in parallel (under a minute once built).
# `make test` (CI): the emulator self-tests, the fast tier, the serialized tier (real binaries,
# emulator, namespaces), then `make deb` and the package install test (PackageInstallTests, root
# only) last; prints each step's duration at the end.
check: deps
	swift build --build-tests $(SWIFT_FLAGS)
	SWIFT_FLAGS="$(SWIFT_FLAGS)" /usr/bin/python3 scripts/test_tiers.py check

test: deps
	swift build --build-tests $(SWIFT_FLAGS)
	SWIFT_FLAGS="$(SWIFT_FLAGS)" WCS_AGENT_DEB=$(DEB) /usr/bin/python3 scripts/test_tiers.py test

clean:
	rm -rf .build .build-deb .build-fuzz

# The main job on the emulator: push wakes the sleeping agent, it resumes by token, the call rings.
demo: release
	/usr/bin/python3 scripts/demo.py .build/release/wcs-agent

bench-deps:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(BENCH_APT_PACKAGES)"

# The binaries the bench measures: the release build with the Swift runtime linked in, as `make deb`
# ships it (same flags, same scratch path .build-deb, so the two share one build).
bench-build: deps
	swift build -c release --static-swift-stdlib --scratch-path .build-deb $(SWIFT_FLAGS)

# Issue 9's figures of that build: goal / measured / ratio, scaling table (no pass/fail).
# QUICK=1: fewer tries, shorter windows, fewer rows. See Benchmarks/README.md.
bench: bench-build bench-deps
	QUICK=$(QUICK) /usr/bin/python3 scripts/bench.py
	/usr/bin/python3 Benchmarks/echo/harness.py --venv .build/bench-venv --json .build-deb/echo-bench.json \
		--runner "$$(swift build -c release --static-swift-stdlib --scratch-path .build-deb --show-bin-path)/wcs-voice-bench"

# Where one call's CPU goes: agent CPU, syscalls per RTP packet by thread and name, a perf profile
# (scripts/bench_profile.py; installs linux-perf). CALLS=1,16 by default; PROFILE_ARGS for more options.
CALLS ?= 1,16
PROFILE_ARGS ?=
bench-profile: bench-build
	@$(MAKE) --no-print-directory deps APT_PACKAGES="linux-perf"
	/usr/bin/python3 scripts/bench_profile.py --calls $(CALLS) --record $(PROFILE_ARGS)

# Mutation testing: plants each bug of Tests/Mutants/mutants.json in a scratch copy and runs the tests
# aimed at it; prints killed/survived with the killing test (see Tests/Mutants/README.md). Long.
mutate: deps
	/usr/bin/python3 scripts/mutate.py $(MUTATE_FLAGS)

# A fleet of N agents against one emulator: server restarts, how fast and how gently they come back.
# FLEET_ARGS passes more options to scripts/fleet.py (e.g. --max-cps 20).
N ?= 100
FLEET_ARGS ?=
fleet: release
	/usr/bin/python3 scripts/fleet.py .build/release/wcs-agent -n $(N) $(FLEET_ARGS)

# libFuzzer harnesses of Tests/Fuzz (instrumented build in .build-fuzz; see Tests/Fuzz/README.md).
# `make fuzz SECONDS=N` runs each harness N seconds, one after another, and prints the executions
# and exec/s per harness; a crash fails the run and its input is in .build-fuzz/artifacts/NAME/.
SECONDS ?= 60
FUZZ_ARGS ?=
fuzz-build: deps
	/usr/bin/python3 scripts/fuzz.py build $(FUZZ_ARGS)

fuzz: deps
	/usr/bin/python3 scripts/fuzz.py run --seconds $(SECONDS) $(FUZZ_ARGS)
