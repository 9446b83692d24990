# The two commands a fresh Debian machine with the Swift toolchain needs:
#   make bench   system packages + default model, release build, run the benchmark
#   make test    system packages + all models, the whole test suite on a release build
# Both are idempotent: a second run installs and downloads nothing.

APT_PACKAGES := libopenblas-dev libomp-dev
SWIFT ?= swift
# Tests run on a release build so the C kernels are optimised; -enable-testing keeps
# `@testable import` working under -O.
RELEASE := -c release
TEST_FLAGS := $(RELEASE) -Xswiftc -enable-testing

.PHONY: all bench test deps models models-default build consumer-check clean

all: build

bench: deps models-default build
	$(SWIFT) run $(RELEASE) bench $(ARGS)

test: deps models
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) test $(TEST_FLAGS) --skip-build

build: deps
	$(SWIFT) build $(RELEASE)

# Installs the missing apt packages when root; otherwise prints the exact command and fails.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "missing system packages; run: sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

models:
	python3 Models/fetch

models-default:
	python3 Models/fetch default

# Proves another package can depend on Quanta by version (no unsafeFlags anywhere).
consumer-check: deps
	.ci/consumer-check

clean:
	rm -rf .build
