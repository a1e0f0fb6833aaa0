# hostgate developer targets. `make test` is the command README.md and
# .ci/run use; it needs PostgreSQL and Redis on 127.0.0.1 for the pg+redis
# suites (skipped locally when absent, a failure when CI=true).

GO ?= go

.PHONY: test test-windows lint build run bench

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

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
