# hostgate developer targets. `make test` is the command README.md and
# .ci/run use; it needs PostgreSQL and Redis on 127.0.0.1 for the pg+redis
# suites (skipped locally when absent, a failure when CI=true).

GO ?= go

# The version stamped into the hub and the agents: the nearest tag (v0.4.0
# gives 0.4.0, and 0.4.0-3-gabc1234-dirty three commits past it), else
# 0.0.0-<commit>, else 0.0.0-dev. It must be a dotted version, because
# the hub publishes its agents as a gateway version (docs/versions.md).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null | sed -E 's/^v([0-9])/\1/; /^[0-9]+\./!s/^/0.0.0-/' | grep . || echo 0.0.0-dev)
STAMP = -X hostgate/internal/agent.Version=$(VERSION) -X hostgate/internal/hub.Version=$(VERSION) -X main.version=$(VERSION)

# The agents the hub embeds and serves at /download/ (docs/agent.md,
# Downloads), and the platforms `make release` builds the hub for.
AGENTS ?= windows/amd64 linux/amd64 linux/arm64
AGENT_BIN = internal/agentdist/bin
RELEASE ?= linux/amd64 linux/arm64 windows/amd64

# cross OUT CMD PLATFORMS: a static, stripped, version-stamped build of
# CMD for each os/arch, to OUT-<os>-<arch>[.exe].
cross = set -e; for p in $(3); do \
		os=$$(dirname $$p); arch=$$(basename $$p); ext=; case $$os in windows) ext=.exe;; esac; \
		echo "build $(2) for $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w $(STAMP)" -o $(1)-$$os-$$arch$$ext $(2); \
	done

.PHONY: test test-web test-sdk test-windows test-cli lint agents console build cli run release bench bench-baseline bench-go fuzz reliability soak

# The browser console (web/, docs/console.md): its npm packages (again
# when the lockfile changes), then its build into internal/console/dist,
# where the hub embeds it; rebuilt when anything in web/ is newer.
CONSOLE = internal/console/dist/index.html
WEB_SRC = $(shell find web -path web/node_modules -prune -o -type f ! -name '*.tsbuildinfo' -print 2>/dev/null)

web/node_modules/.package-lock.json: web/package-lock.json
	npm --prefix web ci --no-audit --no-fund

$(CONSOLE): web/node_modules/.package-lock.json $(WEB_SRC)
	npm --prefix web run build

console: $(CONSOLE)

# Everything: the console's own checks (types, lint, unit tests, the
# OpenAPI document and the types generated from it), the SDKs' own tests,
# then every Go test: the browser tests (e2e/console_test.go) against a
# hub built with the console, and the SDKs against a real hub
# (e2e/sdk_test.go) among them.
test: test-web test-sdk
	$(GO) test -race -count=1 -timeout 20m ./...

test-web: console
	npm --prefix web run check

# The Python and TypeScript SDKs' own tests (docs/sdk-python.md,
# docs/sdk-typescript.md); the TypeScript build they leave in dist/ is
# what e2e/sdk_test.go runs against a real hub.
sdk/typescript/node_modules/.package-lock.json: sdk/typescript/package-lock.json
	npm --prefix sdk/typescript ci --no-audit --no-fund

test-sdk: sdk/typescript/node_modules/.package-lock.json
	python3 -m unittest discover -s sdk/python/tests -t sdk/python
	npm --prefix sdk/typescript run check

# The command-line client (docs/cli.md): its unit tests, then its
# end-to-end test against hub and agent processes (e2e/cli_test.go).
test-cli:
	$(GO) test -race -count=1 ./cmd/hostgate-cli/
	$(GO) test -race -count=1 -run CLI ./e2e/

# The agent's Windows build, tested under Wine (installs Wine and mingw on
# first use; see docs/windows-testing.md).
test-windows:
	.ci/wine/test

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	$(GO) tool staticcheck ./...

# The agent binaries, where the hub's build embeds them, with a VERSION
# file beside them; earlier ones are removed so no stale build is served.
agents:
	rm -f $(AGENT_BIN)/hostgate-agent-* $(AGENT_BIN)/VERSION
	$(call cross,$(AGENT_BIN)/hostgate-agent,./cmd/hostgate-agent,$(AGENTS))
	echo $(VERSION) > $(AGENT_BIN)/VERSION

# The agents, then every command into bin/ (the hub embedding the agents;
# bin/hostgate-cli beside it).
build: agents console
	mkdir -p bin
	$(GO) build -ldflags "$(STAMP)" -o bin/ ./cmd/...

# Only the command-line client, into bin/hostgate-cli.
cli:
	mkdir -p bin
	$(GO) build -ldflags "$(STAMP)" -o bin/ ./cmd/hostgate-cli

run: agents console
	$(GO) run -ldflags "$(STAMP)" ./cmd/hostgate

# Release binaries in dist/: the hub and the command-line client for each
# RELEASE platform, the hub with the agents built in, the agents
# themselves (windows/386 too), and SHA256SUMS. The browser console is embedded in the hub the same way.
release: console
	$(MAKE) agents AGENTS="$(AGENTS) windows/386" VERSION=$(VERSION)
	rm -rf dist
	mkdir dist
	cp $(AGENT_BIN)/hostgate-agent-* dist/
	$(call cross,dist/hostgate,./cmd/hostgate,$(RELEASE))
	$(call cross,dist/hostgate-cli,./cmd/hostgate-cli,$(RELEASE))
	cd dist && sha256sum hostgate-* > SHA256SUMS

# Load scenarios (cmd/hostgate-bench): real hub, agent and fleet processes
# on loopback, each run bounded, one table with every figure beside a floor
# measured in the same run (tags: Select over 100,000 hosts of one user,
# p95 target 200 ms). The figures are also written to build/bench.json and
# compared with bench/baseline.json: the run fails when a figure got worse
# by more than the baseline's run-to-run spread. Every scenario but scale
# (100,000 agents, PostgreSQL, about 40 minutes: BENCHFLAGS='-run scale');
# BENCHFLAGS narrows it, e.g. BENCHFLAGS='-run floor,api -d 2s'. See
# docs/performance.md, "How to measure".
BENCHFLAGS ?= -run floor,api,cross,webhook,terminal,hostlist,search,tags,fleet,jobs
bench: bench-go
	mkdir -p build
	$(GO) run ./cmd/hostgate-bench -json build/bench.json -baseline bench/baseline.json $(BENCHFLAGS)

# A new bench/baseline.json: the load scenarios run twice with BENCHFLAGS,
# each figure's allowed change max(2 × the two runs' relative difference,
# 10 %). Commit the file once the figures are accepted.
bench-baseline:
	mkdir -p build bench
	$(GO) run ./cmd/hostgate-bench -json build/bench-1.json $(BENCHFLAGS)
	$(GO) run ./cmd/hostgate-bench -json build/bench-2.json $(BENCHFLAGS)
	$(GO) run ./cmd/hostgate-bench baseline -o bench/baseline.json build/bench-1.json build/bench-2.json

# Go benchmarks of the hot paths, written to bench-go.txt; compare two runs
# with `go tool benchstat old.txt bench-go.txt`.
HOT = ./internal/accounts ./internal/apikeys ./internal/agentproto ./internal/l1 ./internal/webhooks \
	./internal/streams ./internal/store/sqlite ./internal/store/postgres
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 $(HOT) | tee bench-go.txt

# The reliability battery (docs/reliability.md): every Go test, each
# battery test appending its figure to build/battery.jsonl, then the
# figures written into the doc's table. `make test` runs the same tests.
reliability: test-web
	mkdir -p build && rm -f build/battery.jsonl
	HOSTGATE_BATTERY_OUT=$(CURDIR)/build/battery.jsonl $(GO) test -race -count=1 -timeout 20m ./...
	$(GO) run ./internal/battery/render build/battery.jsonl docs/reliability.md

# The soak (docs/reliability.md, "The soak"): one hub under 30 minutes of
# mixed load — agents connecting, leaving and upgrading, commands, jobs,
# terminals, webhooks, payments — sampled every 10 s; writes
# build/soak/soak.png, soak.json and soak.md and fails on growth or on a
# lost or doubled delivery or payment. PostgreSQL + Redis when reachable;
# SOAKFLAGS='-pg=false -d 60m' for SQLite (its memory takes about 40
# minutes to level off). Not in CI.
SOAKFLAGS ?=
soak:
	$(GO) run ./cmd/hostgate-bench soak -out build/soak $(SOAKFLAGS)

# Every Go fuzz target (each `func Fuzz…` in a _test.go file under
# internal/ and cmd/, found anew on each run), one after the other, each
# for FUZZTIME; then a line per target with its last progress report
# (execs). A crasher is saved under the package's testdata/fuzz/<target>/
# and the run fails at its end. `go test` runs the seed corpora; see
# docs/fuzzing.md.
FUZZTIME ?= 30s
fuzz:
	@set -u; failed=0; summary=$$(mktemp); \
	targets=$$(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' internal cmd | \
		sed -E 's#^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)$$#\1:\2#' | sort -u); \
	for t in $$targets; do \
		dir=$${t%%:*}; name=$${t##*:}; log=$$(mktemp); \
		echo "== $$name ./$$dir ($(FUZZTIME))"; \
		if $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) ./$$dir >$$log 2>&1; then res=ok; else res=FAIL; failed=1; cat $$log; fi; \
		last=$$(grep -o 'elapsed: [0-9]*s, execs: [0-9]*' $$log | tail -1 | \
			awk '{ s = $$2 + 0; n = $$4 + 0; printf "%d execs in %ds (%d/s)", n, s, s ? n / s : 0 }'); \
		printf '%-4s %-22s %-34s %s\n' "$$res" "$$name" "./$$dir" "$${last:-no fuzzing (not this platform)}" | tee -a $$summary; \
		rm -f $$log; \
	done; \
	echo; echo "== summary"; cat $$summary; rm -f $$summary; exit $$failed
