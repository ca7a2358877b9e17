# wcs-agent: build, test, demo and bench entry points.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

APT_PACKAGES := pkg-config libwebsockets-dev libglib2.0-dev libnice-dev libopus-dev libssl-dev \
	libsrtp2-dev libsoxr-dev python3 python3-websockets python3-aiortc openssl espeak-ng \
	curl jq mosquitto mosquitto-clients
# systemd-analyze verifies examples/systemd/wcs-agent.service in the tests.
APT_PACKAGES += systemd
# strace watches the real daemon's fsync calls (DurableWritesTests).
APT_PACKAGES += strace
SWIFT_FLAGS ?=

.PHONY: deps build release test demo bench fleet mutate clean

# Installs the Debian packages the build and tests need; does nothing when all are present.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y $$missing; \
	fi

build: deps
	swift build $(SWIFT_FLAGS)

release: deps
	swift build -c release $(SWIFT_FLAGS)

test: deps
	swift build --build-tests $(SWIFT_FLAGS)
	/usr/bin/python3 Tests/Emulator/selftest.py
	/usr/bin/python3 Tests/Emulator/selftest_media.py
	swift test --skip-build --no-parallel $(SWIFT_FLAGS)

clean:
	rm -rf .build

# The main job on the emulator: push wakes the sleeping agent, it resumes by token, the call rings.
demo: release
	/usr/bin/python3 scripts/demo.py .build/release/wcs-agent

# Speed and memory figures of the release build (a table; no pass/fail).
bench: release
	/usr/bin/python3 scripts/bench.py

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
