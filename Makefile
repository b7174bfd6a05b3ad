# labctl developer targets. `make test` is what CI runs (.ci/run).
GO         ?= go
PKGS       ?= ./...
FUZZTIME   ?= 30s
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build test lint bench fuzz clean

build:
	$(GO) build -o bin/labctl ./cmd/labctl

test:
	$(GO) test -count=1 $(PKGS)

lint:
	@fmt=$$(gofmt -l cmd orchestrator labs scenarios 2>/dev/null); if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)

# Benchmarks: figures for the README. Run on an otherwise idle machine.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Runs every fuzz target for FUZZTIME each (CI runs only their seed corpora,
# as part of `make test`).
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf bin
