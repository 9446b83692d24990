# The two commands a fresh Debian machine with the Swift toolchain needs:
#   make bench   system packages + default model, release build, run the benchmark
#   make test    the history check, system packages + all models, the whole test suite on a
#                release build
# Both are idempotent: a second run installs and downloads nothing.
#   make fuzz    libFuzzer targets (GGUF reader, templates, tokenizers, CLI arguments, server requests), each run
#                FUZZ_SECONDS; seeds in Fuzz/corpus, findings under .build/fuzz; then the macro
#                plugin through its protocol with MACRO_FUZZ_CASES declarations
#   make test-serve-load   `quanta serve` under 200 requests (scripts/serve-load-test.py)

APT_PACKAGES := libopenblas-dev libomp-dev libedit-dev libsimde-dev libmicrohttpd-dev
# PyPI packages the tests use: gguf (llama.cpp's gguf-py) as an independent GGUF reader; openai and ollama,
# the real clients the server tests drive `quanta serve` with.
PIP_PACKAGES := gguf openai ollama
SWIFT ?= swift
# Tests run on a release build so the C kernels are optimised; -enable-testing keeps
# `@testable import` working under -O.
RELEASE := -c release
TEST_FLAGS := $(RELEASE) -Xswiftc -enable-testing

.PHONY: all bench test test-arm64 check-history check-history-selftest deps models models-default build consumer-check clean fuzz fuzz-macros test-serve-load

all: build

bench: deps models-default build
	$(SWIFT) run $(RELEASE) bench $(ARGS)

test: check-history deps models test-arm64
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) test $(TEST_FLAGS) --skip-build

# The C kernels cross-compiled for aarch64 and run under qemu-user on three CPU models (NEON,
# dotprod, i8mm), every output equal to the x86 reference's bits (scripts/test-arm64, < 3 min).
ARM64_APT_PACKAGES := qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
test-arm64:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(ARM64_APT_PACKAGES)" PIP_PACKAGES=
	scripts/test-arm64

# `quanta serve` under load (not in `make test`): 200 requests, 8 at a time, on 2 slots, streamed
# and whole, some cancelled midway, some disconnected while queued; every request a valid answer
# or a clean error, no hang, RSS within 5 % of the warmed-up server's, SIGTERM exits 0.
test-serve-load: deps models
	$(SWIFT) build $(TEST_FLAGS)
	python3 scripts/serve-load-test.py .build/release/quanta Models/SmolLM2-135M-Instruct.Q4_1.gguf

# README, docs and code comments speak of the project, not of how its work was organised: no
# numbered work periods, dates, commit hashes or issue numbers (scripts/check-history). The
# selftest first proves the check catches each of those on a scratch tree.
check-history: check-history-selftest
	python3 scripts/check-history

check-history-selftest:
	@bash scripts/check-history-selftest

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
	@for p in $(PIP_PACKAGES); do \
	  python3 -c "import $$p" 2>/dev/null || { echo "installing $$p (PyPI)"; python3 -m pip install -q --disable-pip-version-check $$p; } || exit 1; \
	done

models:
	python3 Models/fetch

models-default:
	python3 Models/fetch default

# Proves another package can depend on Quanta by version (no unsafeFlags anywhere).
consumer-check: deps
	.ci/consumer-check

# Fuzzing compiles each target's module sources straight into one libFuzzer binary with swiftc
# (SwiftPM would need unsafeFlags for -sanitize=fuzzer). AddressSanitizer is on, so an unsafe
# pointer read outside its buffer is a finding too. Each target runs FUZZ_SECONDS from the seeds
# in Fuzz/corpus plus the corpus earlier runs grew, with Fuzz/TARGET.dict when present; an input
# taking over 10 s counts as a hang. A crash or hang stops make with libFuzzer's report and the
# input under .build/fuzz/findings.
SWIFTC ?= swiftc
FUZZ_SECONDS ?= 60
FUZZ_DIR := .build/fuzz
FUZZ_FLAGS := -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -use-ld=lld
FUZZ_TARGETS := gguf templates tokenizers cli requests
# The server's request decoding: these files need only the JSON and LanguageModelAPI modules.
FUZZ_REQUEST_SOURCES := APIError.swift RequestFields.swift RequestSampling.swift ChatRequest.swift ChatMessages.swift \
  JSONSchemaInput.swift OllamaRequest.swift

fuzz: models fuzz-macros
	@mkdir -p $(FUZZ_DIR)/modules $(FUZZ_DIR)/findings
	$(SWIFTC) $(FUZZ_FLAGS) -module-name FuzzGGUF Sources/GGUF/*.swift Fuzz/GGUFReader.swift -o $(FUZZ_DIR)/gguf
	$(SWIFTC) $(FUZZ_FLAGS) -module-name JSON -emit-module -emit-module-path $(FUZZ_DIR)/modules/JSON.swiftmodule \
	  -emit-library -static -o $(FUZZ_DIR)/modules/libJSON.a Sources/JSON/*.swift
	$(SWIFTC) $(FUZZ_FLAGS) -I $(FUZZ_DIR)/modules -L $(FUZZ_DIR)/modules -lJSON -module-name FuzzTemplates \
	  Sources/Templates/*.swift Fuzz/Templates.swift -o $(FUZZ_DIR)/templates
	$(SWIFTC) $(FUZZ_FLAGS) -module-name GGUF -emit-module -emit-module-path $(FUZZ_DIR)/modules/GGUF.swiftmodule \
	  -emit-library -static -o $(FUZZ_DIR)/modules/libGGUF.a Sources/GGUF/*.swift
	$(SWIFTC) $(FUZZ_FLAGS) -I $(FUZZ_DIR)/modules -L $(FUZZ_DIR)/modules -lGGUF -module-name FuzzTokenizers \
	  Sources/Tokenizers/*.swift Fuzz/Tokenizers.swift -o $(FUZZ_DIR)/tokenizers
	$(SWIFTC) $(FUZZ_FLAGS) -module-name CommandLineSpec -emit-module -emit-module-path $(FUZZ_DIR)/modules/CommandLineSpec.swiftmodule \
	  -emit-library -static -o $(FUZZ_DIR)/modules/libCommandLineSpec.a Sources/CommandLineSpec/*.swift
	$(SWIFTC) $(FUZZ_FLAGS) -I $(FUZZ_DIR)/modules -L $(FUZZ_DIR)/modules -lCommandLineSpec -module-name FuzzCLI \
	  Sources/quanta/CommonOptions.swift Fuzz/CLIArguments.swift -o $(FUZZ_DIR)/cli
	$(SWIFTC) $(FUZZ_FLAGS) -I $(FUZZ_DIR)/modules -L $(FUZZ_DIR)/modules -lJSON -package-name Quanta -module-name LanguageModelAPI \
	  -emit-module -emit-module-path $(FUZZ_DIR)/modules/LanguageModelAPI.swiftmodule \
	  -emit-library -static -o $(FUZZ_DIR)/modules/libLanguageModelAPI.a $(shell find Sources/LanguageModelAPI -name '*.swift')
	$(SWIFTC) $(FUZZ_FLAGS) -I $(FUZZ_DIR)/modules -L $(FUZZ_DIR)/modules -lLanguageModelAPI -lJSON -package-name Quanta \
	  -module-name FuzzRequests $(addprefix Sources/Server/,$(FUZZ_REQUEST_SOURCES)) Fuzz/RequestDecoding.swift -o $(FUZZ_DIR)/requests
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	  echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
	  dict=""; if [ -f Fuzz/$$t.dict ]; then dict="-dict=Fuzz/$$t.dict"; fi; \
	  if ! $(FUZZ_DIR)/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 $$dict -artifact_prefix=$(FUZZ_DIR)/findings/$$t- \
	      $(FUZZ_DIR)/corpus/$$t Fuzz/corpus/$$t > $(FUZZ_DIR)/$$t.log 2>&1; then \
	    tail -n 60 $(FUZZ_DIR)/$$t.log; echo "fuzz $$t: FOUND A CRASH (log $(FUZZ_DIR)/$$t.log)" >&2; exit 1; \
	  fi; \
	  grep -E "^#[0-9]+[[:space:]]+DONE" $(FUZZ_DIR)/$$t.log; \
	done

# The macro plugin answers hostile declarations: the test in make test with many more cases
# (the seed changes the mutations; a failing case prints its index and declaration).
MACRO_FUZZ_CASES ?= 500000
MACRO_FUZZ_SEED ?= $(shell date +%s)
fuzz-macros: deps
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	QUANTA_MACRO_FUZZ_CASES=$(MACRO_FUZZ_CASES) QUANTA_MACRO_FUZZ_SEED=$(MACRO_FUZZ_SEED) \
	  $(SWIFT) test $(TEST_FLAGS) --skip-build --filter PluginFuzzTests

clean:
	rm -rf .build
