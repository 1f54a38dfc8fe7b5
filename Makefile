# Sluice's Makefile. `make help` lists the targets.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

BIN        := $(CURDIR)/bin
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO         ?= go
GOFLAGS    ?=
# make test leaves vet to make verify (golangci-lint's govet) and links the
# test binaries without DWARF (-w) and with Go's own linker: the standard
# library's plugin package (imported through kustomize by Helm) would
# otherwise send three of four binaries through gcc's external linker, a
# fifth to a third more CPU per link (tests/webhookauth, three runs each);
# nothing here loads a plugin. Stack traces are unchanged.
TEST_FLAGS ?= -count=1 -timeout=30m -vet=off -ldflags="-w -linkmode=internal"
# The garbage collector's target for make test's processes (the go
# command, the linker, the test binaries and the API servers, etcd and
# simulated clusters they start): collecting at four times the live heap
# instead of twice takes an eighth off the CPU of a policy-compiling test
# binary (webhook/policycmd: 140 -> 122 CPU-s, two runs each) for memory a
# 24 GiB machine has. Tests that bound a heap collect before they measure.
TEST_GOGC  ?= 400
# make test runs this many test binaries at once (go test -p, default: the
# number of cores). Most of make test's time is in packages that wait on an
# API server, a simulated cluster or a certificate rotation and use about
# half a core each, so two cores keep busy with four of them.
TEST_P     ?= 4
# test-unit keeps go test's result cache: a rerun tests only what changed
# (TEST_UNIT_FLAGS=-count=1 runs everything).
TEST_UNIT_FLAGS ?= -timeout=10m
TEST_PKGS  ?= ./...
# The packages make test starts first, about longest first (wall time in
# make test, 2-core machine): started late, one of them runs on alone at
# the end with a core idle. tests/webhook starts fifth, once the first
# simulated clusters are up: its hot-reload test holds a latency target
# (stretched for the race detector) that five clusters starting at once
# on two cores took from it. Packages not in TEST_PKGS are skipped.
TEST_FIRST ?= ./tests/chart ./tests/e2e ./tests/chaos ./tests/webhookcerts ./tests/webhook \
	./tests/e2eops ./tests/fluiddocs ./tests/controller ./tests/faults ./devcluster
# The packages make test runs without the race detector, before the rest:
# those whose code and tests start no goroutine, no parallel test and no
# control plane (hack/noracecheck proves it before the run), where the
# detector, which reports only accesses from two goroutines, can find no
# race of theirs. It multiplied their CPU by six to ten (policy compiling
# and chart rendering: webhook/policycmd 126 -> 21 CPU-s, engines/alluxio
# 27 -> 2.4, policies 25 -> 4.3, webhook/internal/podpatch 21 -> 2.6); the
# code they call that runs concurrently (the specialiser's background
# builds, the admission pipeline under parallel requests) is raced where it
# does (webhook/internal/specialise, tests/webhook). TEST_NORACE= races
# every package.
TEST_NORACE ?= ./webhook/policycmd ./policies ./webhook/mutating ./webhook/internal/podpatch \
	./engines/alluxio ./engines/jindo ./engines/thin ./engines/juicefs
BENCH_PKGS ?= ./...
BENCHTIME  ?= 5000x
# make bench and make bench-scale keep their `go test -bench` output here;
# make bench-plots draws from BENCH_DATA (the runs recorded in docs/bench).
BENCH_OUT  ?= bench-out
BENCH_DATA ?= docs/bench
FUZZTIME   ?= 60s
# The version every component exports in sluice_build_info (internal/buildinfo).
BUILDINFO  := github.com/sluice-data/sluice/internal/buildinfo
REVISION   ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
GO_FILES    = $(shell find . -name '*.go' -not -path './bin/*' -not -path './.git/*')

CONTROLLER_GEN := $(BIN)/controller-gen
GOLANGCI_LINT  := $(BIN)/golangci-lint
KUBE_APISERVER := $(BIN)/kube-apiserver
ETCD           := $(BIN)/etcd
KUBE_SCHEDULER := $(BIN)/kube-scheduler
KUBE_CM        := $(BIN)/kube-controller-manager
KWOK           := $(BIN)/kwok
KWOK_STAGES    := $(BIN)/kwok-stages.yaml
KUBECTL        := $(BIN)/kubectl
CM_CONTROLLER  := $(BIN)/cert-manager-controller
CM_CAINJECTOR  := $(BIN)/cert-manager-cainjector
CM_CRDS        := $(BIN)/cert-manager-crds.yaml
PROMOP_CRDS    := $(BIN)/prometheus-operator-crds.yaml
RCLONE         := $(BIN)/rclone

export KUBEBUILDER_ASSETS := $(BIN)

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} \
		/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Regenerate deepcopy code, CRDs (config/crd/bases), the controller's ClusterRole and namespaced Role (config/rbac) and their copies in charts/sluice, docs/engines.md's field tables, docs/security.md's trust table, docs/policies.md's rule reference, the chart's README (charts/sluice/README.md) and the policy data's JSON Schema (policies/data.schema.json, and policies.config's in charts/sluice/values.schema.json).
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...
	$(CONTROLLER_GEN) crd paths=./api/v1alpha1/... output:crd:artifacts:config=config/crd/bases
	# The PolicyReport CRDs, which the chart installs only when asked (audit.policyReports.crds).
	$(CONTROLLER_GEN) crd paths=./api/policyreport/... output:crd:artifacts:config=charts/sluice/files/policyreports
	$(CONTROLLER_GEN) rbac:roleName=sluice-controller paths=./controller/... output:rbac:artifacts:config=config/rbac
	# The platform chart's CRDs and controller rules follow what was generated (hack/chartsync).
	$(GO) run ./hack/chartsync
	# docs/engines.md's field tables, docs/security.md's trust table and docs/policies.md's rule reference follow the engines, trust/table.go and the default policies (hack/fieldsdoc).
	$(GO) run ./hack/fieldsdoc
	# The platform chart's README follows its values.yaml comments (hack/chartreadme).
	$(GO) run ./hack/chartreadme -chart charts/sluice
	# The policy data's JSON Schema follows its Go definition, policies/config (hack/policyschema).
	$(GO) run ./hack/policyschema

.PHONY: fmt
fmt: ## Format Go code.
	gofmt -w $(GO_FILES)

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint (.golangci.yml: import rules between components, import aliases, go vet's analyzers, gofmt).
	$(GOLANGCI_LINT) run ./...

.PHONY: verify
verify: $(CONTROLLER_GEN) $(GOLANGCI_LINT) ## Regenerate, check formatting, lint (and that the import rules bite), go.mod tidiness; fail if any generated file was stale.
	@snapshot=$$(mktemp -d); trap 'rm -rf "$$snapshot"' EXIT; \
	cp -r api config "$$snapshot"/; mkdir -p "$$snapshot/chart"; cp -r charts/sluice/crds charts/sluice/files charts/sluice/README.md "$$snapshot/chart"/; cp docs/engines.md docs/security.md docs/policies.md "$$snapshot"/; \
	cp policies/data.schema.json charts/sluice/values.schema.json "$$snapshot"/; \
	$(MAKE) --no-print-directory generate >/dev/null; \
	if ! diff -r "$$snapshot/api" api >/dev/null || ! diff -r "$$snapshot/config" config >/dev/null \
		|| ! diff -r "$$snapshot/chart/crds" charts/sluice/crds >/dev/null || ! diff -r "$$snapshot/chart/files" charts/sluice/files >/dev/null \
		|| ! diff "$$snapshot/engines.md" docs/engines.md >/dev/null || ! diff "$$snapshot/chart/README.md" charts/sluice/README.md >/dev/null \
		|| ! diff "$$snapshot/security.md" docs/security.md >/dev/null || ! diff "$$snapshot/policies.md" docs/policies.md >/dev/null \
		|| ! diff "$$snapshot/data.schema.json" policies/data.schema.json >/dev/null || ! diff "$$snapshot/values.schema.json" charts/sluice/values.schema.json >/dev/null; then \
		echo "verify: generated files were out of date; 'make generate' has now rewritten them:"; \
		diff -r "$$snapshot/api" api | head -40; diff -r "$$snapshot/config" config | head -40; \
		diff -rq "$$snapshot/chart/crds" charts/sluice/crds; diff -r "$$snapshot/chart/files" charts/sluice/files | head -40; \
		diff "$$snapshot/engines.md" docs/engines.md | head -40; diff "$$snapshot/chart/README.md" charts/sluice/README.md | head -40; \
		diff "$$snapshot/security.md" docs/security.md | head -40; diff "$$snapshot/policies.md" docs/policies.md | head -40; \
		diff "$$snapshot/data.schema.json" policies/data.schema.json | head -40; diff "$$snapshot/values.schema.json" charts/sluice/values.schema.json | head -40; exit 1; fi
	@unformatted=$$(gofmt -l $(GO_FILES)); \
	if [[ -n "$$unformatted" ]]; then echo "verify: gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(MAKE) --no-print-directory lint
	hack/verify-import-rules.sh $(GOLANGCI_LINT)
	$(GO) mod tidy -diff
	for m in tests/tools/*/; do (cd $$m && $(GO) mod tidy -diff); done
	@echo "verify: OK"

##@ Build

.PHONY: build
build: ## Build bin/sluice.
	$(GO) build $(GOFLAGS) -ldflags "-X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).revision=$(REVISION)" -o $(BIN)/sluice .

# The image: a static bin/sluice for Linux in an OCI image tarball, built
# without Docker (hack/imagebuild); the chart packaged with appVersion (its
# default image tag) set to the same VERSION (hack/chartpackage).
IMAGE_REPO ?= ghcr.io/sluice-data/sluice
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
IMAGE_TAR  ?= $(BIN)/sluice-image-$(VERSION)-$(IMAGE_ARCH).tar

.PHONY: image
image: ## Build the image tarball bin/sluice-image-VERSION-ARCH.tar (OCI layout and docker archive) without Docker.
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build $(GOFLAGS) -trimpath -ldflags "-s -w -X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).revision=$(REVISION)" -o $(BIN)/sluice-linux-$(IMAGE_ARCH) .
	$(GO) run ./hack/imagebuild -binary $(BIN)/sluice-linux-$(IMAGE_ARCH) -output $(IMAGE_TAR) -repository $(IMAGE_REPO) \
		-version $(VERSION) -arch $(IMAGE_ARCH) -revision "$$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
		-created "$$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)"

.PHONY: chart
chart: ## Package charts/sluice into bin/ with appVersion, the default image tag, set to VERSION.
	$(GO) run ./hack/chartpackage -chart charts/sluice -output $(BIN) -app-version $(VERSION)

.PHONY: dev
dev: build sim-binaries kubectl ## Run Sluice on a local simulated cluster (real scheduler and controllers, kwok nodes) with the demo story, then serve until Ctrl-C.
	$(BIN)/sluice dev --demo

.PHONY: demo
demo: build sim-binaries ## Run the demo story on a fresh `sluice dev` cluster, printing each step; fails on the first step not observed.
	$(BIN)/sluice dev --demo --exit

.PHONY: kubectl
kubectl: $(KUBECTL) ## Build the pinned kubectl (tests/tools/kubectl) into bin/, for bin/dev.kubeconfig.

.PHONY: tools
tools: $(CONTROLLER_GEN) $(GOLANGCI_LINT) kube-binaries sim-binaries certmanager-binaries $(PROMOP_CRDS) $(KUBECTL) $(RCLONE) ## Build every pinned tool into bin/.

.PHONY: kube-binaries
kube-binaries: $(KUBE_APISERVER) $(ETCD) ## Build kube-apiserver and etcd from the pinned tools modules into bin/.

.PHONY: sim-binaries
sim-binaries: kube-binaries $(KUBE_SCHEDULER) $(KUBE_CM) $(KWOK) $(KWOK_STAGES) ## Build the simulated cluster's scheduler, controller-manager and kwok into bin/.

.PHONY: rclone
rclone: $(RCLONE) ## Build the pinned rclone (tests/tools/rclone) into bin/, for the data-path test (tests/datapath).

.PHONY: certmanager-binaries
certmanager-binaries: $(CM_CONTROLLER) $(CM_CAINJECTOR) $(CM_CRDS) ## Build cert-manager's controller and cainjector (tests/tools/certmanager) and write its CRDs into bin/.

$(CONTROLLER_GEN): tests/tools/codegen/go.mod tests/tools/codegen/go.sum
	hack/tool.sh tests/tools/codegen sigs.k8s.io/controller-tools/cmd/controller-gen $@

$(GOLANGCI_LINT): tests/tools/lint/go.mod tests/tools/lint/go.sum
	hack/tool.sh tests/tools/lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint $@

# The version stamped into the Kubernetes binaries (tests/tools/kube/ldflags.sh)
# is part of their cache key; a bin/ copy older than it is replaced.
KUBE_TOOLS_DEPS := tests/tools/kube/go.mod tests/tools/kube/go.sum tests/tools/kube/ldflags.sh

$(KUBE_APISERVER): $(KUBE_TOOLS_DEPS)
	hack/tool.sh tests/tools/kube k8s.io/kubernetes/cmd/kube-apiserver $@

$(ETCD): tests/tools/etcd/go.mod tests/tools/etcd/go.sum
	hack/tool.sh tests/tools/etcd go.etcd.io/etcd/server/v3 $@

$(KUBE_SCHEDULER): $(KUBE_TOOLS_DEPS)
	hack/tool.sh tests/tools/kube k8s.io/kubernetes/cmd/kube-scheduler $@

$(KUBE_CM): $(KUBE_TOOLS_DEPS)
	hack/tool.sh tests/tools/kube k8s.io/kubernetes/cmd/kube-controller-manager $@

$(KUBECTL): tests/tools/kubectl/go.mod tests/tools/kubectl/go.sum tests/tools/kubectl/ldflags.sh tests/tools/kube/ldflags.sh
	hack/tool.sh tests/tools/kubectl k8s.io/kubernetes/cmd/kubectl $@

$(KWOK): tests/tools/kwok/go.mod tests/tools/kwok/go.sum
	hack/tool.sh tests/tools/kwok sigs.k8s.io/kwok/cmd/kwok $@

$(KWOK_STAGES): tests/tools/kwok/go.mod tests/tools/kwok/go.sum hack/kwok-stages.sh
	hack/kwok-stages.sh $@

# rclone with all its backends: the first build takes minutes (tool.sh
# prints a line a minute while it builds).
$(RCLONE): tests/tools/rclone/go.mod tests/tools/rclone/go.sum tests/tools/rclone/ldflags.sh
	hack/tool.sh tests/tools/rclone github.com/rclone/rclone $@

# The certmanager tools module builds commands of its own: its sources are
# part of their cache key too (hack/tool.sh).
CM_TOOLS_DEPS := tests/tools/certmanager/go.mod tests/tools/certmanager/go.sum $(wildcard tests/tools/certmanager/*/*.go)

$(CM_CONTROLLER): $(CM_TOOLS_DEPS)
	hack/tool.sh tests/tools/certmanager github.com/sluice-data/sluice/tests/tools/certmanager/controller $@

$(CM_CAINJECTOR): $(CM_TOOLS_DEPS)
	hack/tool.sh tests/tools/certmanager github.com/sluice-data/sluice/tests/tools/certmanager/cainjector $@

# prometheus-operator's PodMonitor, ServiceMonitor and PrometheusRule CRDs,
# generated from the monitoring API module in go.mod, for tests/chart.
.PHONY: prometheus-operator-crds
prometheus-operator-crds: $(PROMOP_CRDS) ## Write prometheus-operator's monitor and rule CRDs into bin/ (for the chart's monitoring tests).

$(PROMOP_CRDS): $(CONTROLLER_GEN) go.mod go.sum hack/prometheus-operator-crds.sh
	hack/prometheus-operator-crds.sh $(CONTROLLER_GEN) $@

$(CM_CRDS): tests/tools/certmanager/go.mod tests/tools/certmanager/go.sum hack/cert-manager-crds.sh
	hack/cert-manager-crds.sh $@

##@ Test

.PHONY: test-unit
test-unit: ## Quick loop: the tests that need no kube binaries (packages linking tests/support/testenv, tests/support/simcluster or envtest are left out; hack/unit-packages.sh); results cached.
	env -u KUBEBUILDER_ASSETS $(GO) test $(TEST_UNIT_FLAGS) $$(hack/unit-packages.sh $(TEST_PKGS))

.PHONY: test
test: sim-binaries certmanager-binaries $(PROMOP_CRDS) $(RCLONE) fuse3 ## Run every test, with the race detector (but TEST_NORACE's, which start no goroutine), against a real kube-apiserver and etcd, e2e on a simulated cluster, cert-manager mode against cert-manager's controllers, the rclone data path through FUSE (binaries built when missing); the slowest tests and packages are named at the end.
	# TEST_NORACE's packages first, without the race detector (hack/noracecheck
	# checks they may), then every other package with it (waits stretch under
	# it: tests/support/testenv.Stretch), the longest-running first
	# (TEST_FIRST, hack/test-order.sh).
	$(GO) run ./hack/noracecheck $(TEST_NORACE)
	all=$$(hack/test-order.sh $(TEST_FIRST) -- $(TEST_PKGS)) && \
	norace=$$(if [ -n "$(strip $(TEST_NORACE))" ]; then grep -xF -f <($(GO) list $(TEST_NORACE)) <<<"$$all" || true; fi) && \
	race=$$(grep -vxF -f <(printf '%s\n' $$norace) <<<"$$all" || true) && \
	{ status=0; \
	  if [ -n "$$norace" ]; then GOGC=$(TEST_GOGC) $(GO) test -json -p $(TEST_P) $(TEST_FLAGS) $$norace || status=$$?; fi; \
	  if [ -n "$$race" ]; then GOGC=$(TEST_GOGC) $(GO) test -race -json -p $(TEST_P) $(TEST_FLAGS) $$race || status=$$?; fi; \
	  exit $$status; } | $(GO) run ./hack/testsummary

.PHONY: fuse3
fuse3: ## Make sure tests/datapath can mount: installs Debian's fuse3 (fusermount3) when root with apt-get, else says what to install (hack/fuse3.sh).
	@hack/fuse3.sh

.PHONY: bench
bench: build sim-binaries $(RCLONE) ## Run the benchmarks (admission latency against a real API server, p50/p99; a webhook replica's start to ready and its first admissions; datasets to Bound at 100 to 2,000 and their floor, and DataLoads to Complete, on a simulated cluster; the cache-refresh loop and the metrics scrape with 1,000 Datasets; cold and warm reads through rclone's FUSE mount), keeping the output in BENCH_OUT.
	mkdir -p $(BENCH_OUT)
	$(GO) test -p 1 -run '^$$' -bench . -benchmem -benchtime=$(BENCHTIME) $$($(GO) list $(BENCH_PKGS) | grep -v -e /tests/scale -e /tests/datapath -e /controller/metrics) | tee $(BENCH_OUT)/bench.txt
	# One scrape of 1,000 Datasets' metrics takes a fifth of a second.
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=20x ./controller/metrics | tee $(BENCH_OUT)/metrics.txt
	$(GO) test -run '^$$' -bench . -benchtime=1x -timeout=90m ./tests/scale | tee $(BENCH_OUT)/scale.txt
	# Each cold read writes a new 4 MiB object and each warm-up reads 32 MiB never read: a small fixed count (at most 20).
	$(GO) test -run '^$$' -bench . -benchtime=20x ./tests/datapath | tee $(BENCH_OUT)/datapath.txt

.PHONY: bench-scale
bench-scale: build sim-binaries ## Datasets to Bound and its floor at 5,000 Datasets (make bench runs 100 to 2,000), and 1,000 queued DataLoads (make bench runs 200); output in BENCH_OUT/scale-5000.txt and queued-1000.txt.
	mkdir -p $(BENCH_OUT)
	SLUICE_BENCH_LARGE=1 $(GO) test -run '^$$' -bench '^Benchmark(DatasetsToBound|FloorObjectsToBound)$$/^datasets=5000$$' -benchtime=1x -timeout=120m ./tests/scale | tee $(BENCH_OUT)/scale-5000.txt
	SLUICE_BENCH_LARGE=1 $(GO) test -run '^$$' -bench '^BenchmarkQueuedDataLoads$$/^dataloads=1000' -benchtime=1x -timeout=60m ./tests/scale | tee $(BENCH_OUT)/queued-1000.txt

.PHONY: bench-plots
bench-plots: ## Draw docs/bench/*.svg and docs/bench/scale.md from the benchmark output in BENCH_DATA (docs/bench/*.txt, the runs docs/benchmarks.md cites; BENCH_DATA=bench-out draws the last make bench).
	$(GO) run ./hack/benchplots -in $(BENCH_DATA) -out docs/bench

# Every fuzz target of the tree, as PACKAGE:TARGET (TestMakeFuzzRunsEveryTarget
# keeps the list complete). `go test` runs each target's seeds in make test;
# make fuzz fuzzes each for FUZZTIME.
FUZZ_TARGETS := ./webhook/mutating:FuzzAdmissionReview ./webhook/validating:FuzzValidatingAdmission \
	./webhook/decision:FuzzDecode ./api/scheme:FuzzDecodeObjects ./engines:FuzzParseMetrics

.PHONY: fuzz
fuzz: ## Fuzz the mutating and validating admission paths, the decision and YAML decoders and the engines' metrics parsers, each for FUZZTIME (default 60s).
	for t in $(FUZZ_TARGETS); do $(GO) test "$${t%%:*}" -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) || exit 1; done

.PHONY: clean
clean: ## Remove build output (bin/ keeps nothing that cannot be rebuilt).
	rm -rf $(BIN)
