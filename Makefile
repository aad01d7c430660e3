# mcp-wasm build, test and check targets. Tools are pinned here.
GO          ?= go
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
CLANG       ?= clang
CFLAGS_WASM := --target=wasm32-wasi --sysroot=/usr -O2 -mexec-model=reactor -Wall -Werror -Wl,--strip-all -I guests/c
GO_GUESTS   := notes files bench conformance httpjson sqlite git
C_GUESTS    := cdocs cbench cfiles
# The catalog example, once per SDK (guests/catalog): built by the rules below.
CATALOGS    := catalog-go catalog-c catalog-rust catalog-as
# Rust: Debian's toolchain (apt-get install rustc cargo libstd-rust-dev-wasm32)
# builds wasm32-wasi; with rustup 1.78 or later use
# `make RUST_BIN=$$(dirname $$(rustup which cargo)) RUST_TARGET=wasm32-wasip1`.
RUST_BIN    ?= /usr/bin
RUST_TARGET ?= wasm32-wasi
# AssemblyScript: the compiler pinned in guests/assemblyscript/package-lock.json
# (`make asc` installs it); the flags are testguest.AscFlags.
ASC         := node guests/assemblyscript/node_modules/assemblyscript/bin/asc.js
ASC_FLAGS   := --exportStart _initialize -O3 --shrinkLevel 1
FUZZTIME    ?= 5s

.PHONY: all build guests catalogs asc test check fmt vet lint tidy fuzz-smoke bench default-provider hostile

all: build

build:
	$(GO) build -trimpath -o build/ ./cmd/mcp-wasm ./cmd/mcp-wasm-verify

# Every guest, built with the real toolchains into build/guests/NAME.wasm.
guests: $(GO_GUESTS:%=build/guests/%.wasm) $(C_GUESTS:%=build/guests/%.wasm) catalogs

# The catalog in every SDK: build/guests/catalog-{go,c,rust,as}.wasm.
catalogs: $(CATALOGS:%=build/guests/%.wasm)

build/guests/catalog-go.wasm: FORCE
	@mkdir -p build/guests
	@echo "go   $@"; GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 $(GO) build -buildmode=c-shared -trimpath -ldflags='-s -w' -o $@ ./guests/catalog/go

build/guests/catalog-c.wasm: FORCE
	@mkdir -p build/guests
	@echo "clang $@"; $(CLANG) $(CFLAGS_WASM) -o $@ guests/c/mcpw.c guests/catalog/c/catalog.c

build/guests/catalog-rust.wasm: FORCE
	@mkdir -p build/guests
	@echo "cargo $@"; cd guests/catalog/rust && PATH="$(RUST_BIN):$$PATH" RUSTC=$(RUST_BIN)/rustc CARGO_TARGET_DIR=$(CURDIR)/build/cargo \
		$(RUST_BIN)/cargo build --offline --release --quiet --target $(RUST_TARGET)
	@cp build/cargo/$(RUST_TARGET)/release/catalog.wasm $@

build/guests/catalog-as.wasm: FORCE
	@mkdir -p build/guests
	@echo "asc  $@"; $(ASC) guests/catalog/assemblyscript/index.ts -o $@ $(ASC_FLAGS)

# Installs the pinned AssemblyScript compiler into guests/assemblyscript/node_modules.
asc:
	cd guests/assemblyscript && npm ci --no-audit --no-fund

build/guests/%.wasm: FORCE
	@mkdir -p build/guests
	@if [ -d guests/$* ] && ls guests/$*/*.go >/dev/null 2>&1; then \
		echo "go   $@"; GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 $(GO) build -buildmode=c-shared -trimpath -ldflags='-s -w' -o $@ ./guests/$*; \
	else \
		echo "clang $@"; $(CLANG) $(CFLAGS_WASM) -o $@ guests/c/mcpw.c guests/$*/$*.c; \
	fi
FORCE:

# The files provider embedded in the binary as the default provider: the C
# one (guests/cfiles). The compiler's version is recorded beside it, for the
# reproducibility test. Do not put binaryen's wasm-opt on PATH: clang 14 runs
# it after linking when it finds it, and the bytes would depend on it.
default-provider: build/guests/cfiles.wasm
	cp build/guests/cfiles.wasm cmd/mcp-wasm/defaultprovider/files.wasm
	$(CLANG) --version | head -n 1 > cmd/mcp-wasm/defaultprovider/files.wasm.clang-version

# Hostile fixtures: regenerate the committed .wasm from the .wat sources.
hostile:
	cd testdata/hostile && ./regen.sh
	cd testdata/wat && for f in *.wat; do wat2wasm "$$f" -o "$${f%.wat}.wasm"; done

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# runtime/internal/rootfs implements wazero's experimental/sys.File, whose
# Seek returns an Errno, not an error: vet's stdmethods check is off for the
# runtime and that package only.
vet:
	$(GO) vet $$($(GO) list ./... | grep -v -e '/runtime$$' -e '/runtime/internal/rootfs$$')
	$(GO) vet -stdmethods=false ./runtime ./runtime/internal/rootfs
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./abi ./guests/...

lint:
	$(STATICCHECK) ./...

tidy:
	$(GO) mod tidy
	@git diff --exit-code go.mod go.sum || (echo "go.mod/go.sum not tidy: run go mod tidy and commit" && exit 1)

# The test command of the README: everything, with the race detector.
test:
	$(GO) test -race -shuffle=on -count=1 -timeout 20m ./...

# Short fuzz runs of every fuzz target (seed corpora also run in `test`).
# A target that fails only with Go 1.26's bare "context deadline exceeded"
# (the fuzz coordinator reports it when -fuzztime ends while a worker is
# busy, golang/go#75804; a clean CI run saw it on 2 of 40 targets) is run
# again, up to twice. Any other failure fails at once: a real finding is
# written under testdata/fuzz and says so. FUZZPKGS picks packages.
FUZZPKGS ?= ./...
fuzz-smoke:
	@mkdir -p build; set -e; for pkg in $$($(GO) list $(FUZZPKGS)); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$f"; \
			for try in 1 2 3; do \
				if $(GO) test -run XXX -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $$pkg >build/fuzz.log 2>&1; then break; fi; \
				cat build/fuzz.log; \
				if [ $$try = 3 ] || grep -q 'Failing input written' build/fuzz.log || \
					! grep -q '^    context deadline exceeded$$' build/fuzz.log; then \
					echo "fuzz $$f failed"; exit 1; \
				fi; \
				echo "fuzz $$f: the fuzz engine's own deadline (golang/go#75804); running it again"; \
			done; \
		done; done

# check is what CI runs: format, vet (host and wasip1), staticcheck, tidy, race tests, fuzz smoke.
check: fmt vet lint test fuzz-smoke tidy

bench:
	$(GO) test -run XXX -bench . -benchmem -count 5 ./runtime ./server ./cmd/... | tee build/bench.txt
