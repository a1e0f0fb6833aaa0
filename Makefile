# hostgate developer targets. `make test` is the command README.md and
# .ci/run use; it needs PostgreSQL and Redis on 127.0.0.1 for the pg+redis
# suites (skipped locally when absent, a failure when CI=true).

GO ?= go

.PHONY: test test-windows lint build run bench bench-go

test:
	$(GO) test -race -count=1 -timeout 14m ./...

# The agent's Windows build, tested under Wine (installs Wine and mingw on
# first use; see docs/windows-testing.md).
test-windows:
	.ci/wine/test

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	$(GO) tool staticcheck ./...

build:
	mkdir -p bin
	$(GO) build -o bin/ ./cmd/...

run:
	$(GO) run ./cmd/hostgate

# Load scenarios (cmd/hostgate-bench): real hub, agent and fleet processes
# on loopback, each run bounded, one table with every figure beside a floor
# measured in the same run. Takes about 15 minutes; BENCHFLAGS narrows it,
# e.g. BENCHFLAGS='-run floor,api -d 2s'. See docs/performance.md.
bench: bench-go
	$(GO) run ./cmd/hostgate-bench $(BENCHFLAGS)

# Go benchmarks of the hot paths, written to bench-go.txt; compare two runs
# with `go tool benchstat old.txt bench-go.txt`.
HOT = ./internal/accounts ./internal/apikeys ./internal/agentproto ./internal/l1 ./internal/webhooks \
	./internal/streams ./internal/store/sqlite ./internal/store/postgres
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 $(HOT) | tee bench-go.txt
