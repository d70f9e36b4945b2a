# EntityStream: two commands do everything on a fresh Debian machine.
#   make demo   install what is missing, build, run the embedded demo
#   make test   install what is missing, run the tests
# Also: make setup, make build, make bench (release build + benchmarks),
#   make fuzz (the fuzz tests with fresh seeds for FUZZ_SECONDS, default 60),
#   make soak (release build; memory stays flat for SOAK_SECONDS, default 150, per run),
#   make interop (real ArcGIS clients against the simulator and the relay; see .ci/interop),
#   make e2e (the relay's live map page in headless chromium; make setup E2E=1 installs chromium).

SHELL := /bin/bash
SWIFT ?= swift
# Root installs directly; anyone else goes through sudo.
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# How long `make fuzz` runs each fuzz test with fresh seeds (seconds).
FUZZ_SECONDS ?= 60
# How long each `make soak` run lasts (seconds).
SOAK_SECONDS ?= 150

.PHONY: setup build test fuzz demo bench soak interop e2e clean

## setup: install the Debian packages the build and tests need, only if missing
setup:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	pkg-config --exists libwebsockets 2>/dev/null || missing="$$missing libwebsockets-dev"; \
	pkg-config --exists libtiff-4 2>/dev/null || missing="$$missing libtiff-dev"; \
	[ -f /usr/include/geotiff/geotiff.h ] || missing="$$missing libgeotiff-dev"; \
	pkg-config --exists proj 2>/dev/null || missing="$$missing libproj-dev"; \
	[ -f /usr/share/proj/proj.db ] || missing="$$missing proj-data"; \
	command -v openssl >/dev/null 2>&1 || missing="$$missing openssl"; \
	pkg-config --exists libnats 2>/dev/null || missing="$$missing libnats-dev"; \
	command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing="$$missing nats-server"; \
	if [ -n "$$missing" ]; then \
	  echo "make setup: missing:$$missing" >&2; \
	  echo "make setup: running: $(SUDO) apt-get update && $(SUDO) apt-get install -y$$missing" >&2; \
	  { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; } 1>&2; \
	else \
	  echo "make setup: libwebsockets-dev, libtiff-dev, libgeotiff-dev, libproj-dev (with proj-data), libnats-dev, nats-server, pkg-config and openssl are installed" >&2; \
	fi
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "make setup: '$(SWIFT)' not found: install Swift 6.1 or later (swift.org)" >&2; exit 1; }
	@if [ -n "$(E2E)" ]; then \
	  missing=""; \
	  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="$$missing chromium"; \
	  command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	  if [ -n "$$missing" ]; then \
	    echo "make setup E2E=1: running: $(SUDO) apt-get install -y$$missing" >&2; \
	    { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; } 1>&2; \
	  else echo "make setup E2E=1: chromium and curl are installed" >&2; fi; \
	fi

## build: debug build of the library, entitystream and stream-simulator
## (make's own messages and the build log go to stderr: `make demo`'s stdout is only JSON lines)
build: setup
	@echo "$(SWIFT) build" >&2
	@$(SWIFT) build 1>&2

## test: every test (Swift Testing)
test: setup
	$(SWIFT) test

## fuzz: the fuzz tests (the same generators `make test` runs on fixed seeds) with fresh
## seeds until FUZZ_SECONDS have passed; a failure names its seed, replayed with
## ENTITYSTREAM_FUZZ_SEED=0x… swift test --filter <test>
fuzz: setup
	ENTITYSTREAM_FUZZ_SECONDS=$(FUZZ_SECONDS) $(SWIFT) test --filter Fuzz

## demo: the embedded demo (simulated snowplows over a loopback WebSocket); Ctrl-C stops it
demo: build
	@.build/debug/entitystream

## bench: release build, then the benchmarks of README's performance section
bench: setup
	$(SWIFT) build -c release
	.build/release/entitystream-bench all

## soak: release build, then the demo at 20,000 vehicles and a looped replay of 20,000 tracks on
## loopback, SOAK_SECONDS each, sampling RSS; fails when memory grows once the store is full
soak: setup
	$(SWIFT) build -c release
	.build/release/entitystream-bench soak --seconds $(SOAK_SECONDS)

## interop: real ArcGIS clients (GDAL's ogr2ogr, esridump, the ArcGIS API for Python, the JS SDK in
## headless chromium) against stream-simulator on loopback; each skipped with a message when not
## installed (setup steps at the top of .ci/interop). Not part of `make test`.
interop: setup
	bash .ci/interop

## e2e: the relay's live map page in Debian's headless chromium (see .ci/e2e); skipped with a message when
## chromium is absent (make setup E2E=1 installs it). Not part of `make test`.
e2e: setup
	bash .ci/e2e

clean:
	rm -rf .build
