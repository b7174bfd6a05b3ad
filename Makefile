# labctl developer targets. `make lint` and `make test` are what CI runs (.ci/run).
GO         ?= go
PKGS       ?= ./...
FUZZTIME   ?= 30s
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2
# gotestsum runs 'go test -json' and prints a line as each test and each
# package ends (plain 'go test' says nothing about a package until it is
# done: minutes for cmd/labctl), then the failures again and a summary.
# TESTFORMAT=pkgname prints one line per package only; SLOWTESTS is the
# wall time over which a test is listed at the end.
GOTESTSUM   = gotest.tools/gotestsum@v1.13.0
TESTFORMAT ?= testname
SLOWTESTS  ?= 20s

# The tests of the clabernetes runtime run against a real Kubernetes API
# server: kube-apiserver built from the Kubernetes Go module, cached per
# machine under the user's cache directory (see 'make kube-apiserver').
KUBE_VERSION   = v1.37.2
KUBE_APISERVER = $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/labctl/kube-apiserver/$(KUBE_VERSION)/kube-apiserver

.PHONY: build test lint bench bench-cli bench-compare bench-instr pgo fuzz property clean kube-apiserver

# The commit goes in by -ldflags as well (labctl version): Go stamps it
# only where .git is a directory (not in a git worktree) and never with
# -buildvcs=false.
VCS_LDFLAGS = -X main.vcsCommit=$(shell git rev-parse HEAD 2>/dev/null) \
	-X main.vcsTime=$(shell git log -1 --format=%cI 2>/dev/null) \
	-X main.vcsModified=$(if $(shell git status --porcelain 2>/dev/null | head -c1),true,false)

# labctl is built static (CGO_ENABLED=0; nothing in it needs cgo, the
# resolver and os/user have pure Go forms): without the dynamic loader and
# libc a command starts on about 100 fewer page faults, 0.8 ms less CPU
# (labctl version 10.9 against 11.7 ms, 25 interleaved runs), and the
# binary runs on any Linux of its architecture. BIN is where it goes; the
# bench scripts build through this target so that they measure this build.
BIN ?= bin/labctl
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(VCS_LDFLAGS)" -o $(BIN) ./cmd/labctl

# The unit and integration tests, then the Docker-backed tests of the
# containerlab runtime (real exec, image build from Debian packages) when a
# Docker engine answers. CI (CI=true) must have Docker: .ci/run starts it.
# Where containerlab is on PATH too (CI cannot install it), a catalog lab is
# deployed and destroyed with it (-tags containerlab).
# The clabernetes tests need etcd and a built kube-apiserver; without them
# they skip, except under CI=true, where .ci/run provides both.
# Each run ends with the tests that took over SLOWTESTS (gotestsum tool
# slowest, from the run's own timings), so a test that grows slow shows.
# TESTTIMEOUT: cmd/labctl's tests take some 3 minutes on an idle 2-core
# machine but over 10 (go test's default limit, which ends the package
# with a panic) where other jobs share the cores.
TESTTIMEOUT ?= 30m
test:
	@if [ ! -x "$(KUBE_APISERVER)" ] || ! command -v etcd >/dev/null; then \
		echo "the clabernetes tests against a real API server will skip: they need etcd (apt-get install etcd-server) and 'make kube-apiserver'"; \
	fi
	@times=$$(mktemp); \
	$(GO) run $(GOTESTSUM) --format $(TESTFORMAT) --jsonfile-timing-events "$$times" -- -count=1 -timeout $(TESTTIMEOUT) $(PKGS); rc=$$?; \
	echo "tests that took over $(SLOWTESTS):"; \
	$(GO) run $(GOTESTSUM) tool slowest --jsonfile "$$times" --threshold $(SLOWTESTS); \
	rm -f "$$times"; [ $$rc -eq 0 ] || exit $$rc; \
	echo "go test -race -run 'TestParallel|TestPartitions|TestNICScanSkipSameResult|TestQuiet' ./orchestrator/sim (the parallel engine's threads share no state unguarded, nor with the samples taken between windows)"; \
	$(GO) test -count=1 -race -run 'TestParallel|TestPartitions|TestNICScanSkipSameResult|TestQuiet' ./orchestrator/sim || exit 1; \
	echo "go test -race: variants run at once (labctl run -j) share the lab's configs read-only, and the runner's state"; \
	$(GO) test -count=1 -race -run 'TestVariantsAtOnceShareConfigs' ./orchestrator/runtime/sim || exit 1; \
	$(GO) test -count=1 -race -run 'TestRunnerSweepParallelSame' ./orchestrator/scenario
	@if docker info >/dev/null 2>&1; then \
		echo "go test -tags docker ./orchestrator/runtime/clab/..."; \
		$(GO) run $(GOTESTSUM) --format $(TESTFORMAT) -- -count=1 -tags docker ./orchestrator/runtime/clab/...; \
	elif [ "$$CI" = "true" ]; then \
		echo "CI=true but no Docker engine answers: the Docker-backed tests cannot run"; exit 1; \
	else \
		echo "skipping the Docker-backed tests: no Docker engine answers (start dockerd to run them)"; \
	fi
	@if command -v containerlab >/dev/null 2>&1 && docker info >/dev/null 2>&1; then \
		echo "go test -tags containerlab ./orchestrator/runtime/clab"; \
		$(GO) run $(GOTESTSUM) --format $(TESTFORMAT) -- -count=1 -tags containerlab -run Containerlab ./orchestrator/runtime/clab; \
	else \
		echo "skipping the containerlab tests: no containerlab on PATH (or no Docker engine)"; \
	fi

# gofmt, go vet, staticcheck, and a tidy module: go.mod and go.sum must be
# what 'go mod tidy' writes (it prints the diff otherwise).
lint:
	@fmt=$$(gofmt -l cmd orchestrator labs scenarios 2>/dev/null); if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags docker,containerlab ./orchestrator/runtime/clab/...
	$(GO) run $(STATICCHECK) $(PKGS)
	$(GO) run $(STATICCHECK) -tags docker,containerlab ./orchestrator/runtime/clab/...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit the result"; exit 1; }

# Benchmarks: figures for the README. Run on an otherwise idle machine.
# They are built with labctl's own profile (cmd/labctl/default.pgo), which
# `go test` would not read for a library package, so that they measure the
# code as the labctl binary runs it (BenchmarkEngine some 6% faster so).
bench:
	$(GO) test -pgo=$(CURDIR)/cmd/labctl/default.pgo -run '^$$' -bench . -benchmem $(PKGS)
	@$(MAKE) --no-print-directory bench-cli

# Wall time and peak memory of the main jobs, as a user runs them: up and
# a packet-level ring AllReduce over every NIC at 64, 128, 1024 and 4096
# GPUs (every CPU, then one thread at 1024 and 4096 GPUs: the parallel
# engine's speed-up, the same record), the ECN x PFC matrix on 64gpu one
# variant at a time and two at a time, and a 1024-GPU all-to-all of a
# million QPs. Takes about 15 minutes.
bench-cli: build
	@d=$$(mktemp -d); bin=$$(pwd)/bin/labctl; docs=$$(pwd)/docs; cd $$d && \
	for lab in 64gpu 128gpu 1024gpu $$docs/labs/4096gpu.yaml; do \
		/usr/bin/time -f "labctl up $$(basename $$lab .yaml): %e s wall, %M KiB peak RSS" $$bin up $$lab >/dev/null; \
	done; \
	for lab in 64gpu 128gpu 1024gpu 4096gpu; do \
		/usr/bin/time -f "labctl run allreduce --lab $$lab: %e s wall, %M KiB peak RSS" $$bin run allreduce --lab $$lab | grep 'x theory'; \
	done; \
	for lab in 1024gpu 4096gpu; do \
		/usr/bin/time -f "labctl run allreduce --lab $$lab --threads 1: %e s wall, %M KiB peak RSS" $$bin run allreduce --lab $$lab --threads 1 | grep 'x theory\|run cost'; \
	done; \
	for j in 1 2; do \
		/usr/bin/time -f "labctl run ecn-pfc --lab 64gpu -j $$j: %e s wall, %M KiB peak RSS" $$bin run ecn-pfc --lab 64gpu -j $$j >/dev/null; \
	done; \
	/usr/bin/time -f "labctl run moe-all-to-all --lab 1024gpu: %e s wall, %M KiB peak RSS" $$bin run $$docs/scenarios/moe-all-to-all.yaml --lab 1024gpu >/dev/null; \
	rm -rf $$d

# labctl side by side with htsim's RoCE model on the same three cases (an
# 8:1 incast, permutations at 128 and 1024 hosts): CPU and wall time of each
# process, interleaved, medians of REPS (default 5) runs. HTSIM names the
# htsim_roce binary, built outside this repository (bench/compare/README.md
# says how); CASES picks cases. Takes about 10 minutes with REPS=5.
.PHONY: bench-compare
bench-compare:
	HTSIM="$(HTSIM)" bash bench/compare.sh

# What a labctl run costs besides its simulation: CPU and page faults of a
# one-line Go program, `labctl version`, the bench incast with 4 KB flows
# and the incast itself, interleaved, medians of REPS (default 21) runs.
.PHONY: bench-fixed
bench-fixed:
	REPS="$(REPS)" bash bench/fixed.sh

# Instructions and L1 misses of whole `labctl run` processes under valgrind's
# cachegrind (CASES="incast perm128"; needs valgrind): the same every run,
# where CPU time on a shared machine moves by a fifth.
bench-instr:
	CASES="$(CASES)" bash bench/instr.sh

# Rewrites cmd/labctl/default.pgo, the profile Go builds labctl with
# (profile-guided optimization, about a fifth less CPU on the incast of
# bench-compare): run it after large engine changes and commit the result.
pgo:
	bash bench/pgo.sh

# Runs every fuzz target for FUZZTIME each (CI runs only their seed corpora,
# as part of `make test`).
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

# Runs labctl run's property test (cmd/labctl TestRunProperties) over
# PROPERTY_N generated scenarios from PROPERTY_SEED, each run four ways
# (CI runs 40, two ways each, as part of `make test`): about 20 minutes
# for 1500 on 2 cores.
PROPERTY_N    ?= 1500
PROPERTY_SEED ?= 1
property:
	LABCTL_PROPERTY_N=$(PROPERTY_N) LABCTL_PROPERTY_SEED=$(PROPERTY_SEED) $(GO) test -count=1 -timeout 6h -run '^TestRunProperties$$' ./cmd/labctl

# Builds kube-apiserver $(KUBE_VERSION) into $(KUBE_APISERVER) unless it is
# there: about 7 minutes on 2 cores the first time, a no-op afterwards.
kube-apiserver:
	LABCTL_BUILD_KUBE_APISERVER=1 $(GO) test -count=1 -timeout 60m -run '^TestBuild$$' -v ./orchestrator/runtime/clabernetes/kubetest

clean:
	rm -rf bin
