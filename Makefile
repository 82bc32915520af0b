# Wraps CMake. `make demo` and `make test` install any missing Debian
# packages first (apt-get update once, then apt-get install -y), so both work
# on a fresh Debian machine.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# SANITIZE=1 makes the main build an ASan+UBSan build.
SANITIZE   ?= 0

# Build and test dependencies, then the peers used by tests and benchmarks.
PACKAGES = cmake make gcc pkg-config libev-dev libhttp-parser-dev libluajit-5.1-dev luajit \
           lua-busted zlib1g-dev libssl-dev openssl libnghttp2-dev python3 wrk apache2-utils nghttp2-client nghttp2-server python3-h2 nginx-light \
           default-jre-headless libhdrhistogram-java libgumbo-dev
# libgumbo-dev: the HTML5 parser behind a flow's r:html() (src/markup/html_doc.c).
# Needed by `make deb`: dpkg-shlibdeps (dpkg-dev) finds the package's Depends.
DEB_PACKAGES = dpkg-dev
# Needed by `make test` only (not `make demo`): headless Chromium renders the
# HTML report in tests/integration/test_html_chromium.sh; man-db renders the
# man pages, and the package test builds the package as `make deb` does;
# GNU parallel runs the launcher in test_launch_parallel.sh, and
# python3-yaml reads the Kubernetes manifest in test_launch_k8s.sh; iproute2
# brings up loopback in the network namespaces of test_source.sh (and
# long_100k.sh); ruby-sinatra (with ruby-rack's cookie sessions) on puma is
# the web shop of test_flow_shop.sh; python3-aiohttp runs tests/integration/py/llm_server.py
# (the independent LLM server of test_llm_target.sh); tinyproxy is the HTTP
# proxy (absolute-form and CONNECT) of test_proxy.sh.
TEST_PACKAGES = chromium man-db $(DEB_PACKAGES) parallel python3-yaml iproute2 ruby ruby-rack ruby-sinatra puma python3-aiohttp tinyproxy
# Needed by the benchmarks only (`make bench`, `make bench-flows`), never by
# `make test`: Locust, a peer of tests/bench/flows.sh (which installs its
# other peer, Artillery, from npm into $(BUILD)/artillery itself);
# python3-bs4, BeautifulSoup, Locust's HTML parser, beside r:html() in
# tests/bench/html.sh.
BENCH_PACKAGES = python3-locust python3-bs4
# Needed by `make test-long` only: a one-node Slurm cluster (long_slurm.sh).
LONG_PACKAGES = slurm-wlm munge

.PHONY: all deps test-deps build build-asan demo test test-asan test-long bench bench-flows clean install deb

all: build

deps:
	@scripts/install-deps.sh $(PACKAGES)

# Everything `make test` needs, in one `apt-get update` (it runs before
# build's own deps, which then find them all present).
test-deps:
	@scripts/install-deps.sh $(PACKAGES) $(TEST_PACKAGES)

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DVOLLEY_SANITIZE=$(if $(filter 1,$(SANITIZE)),ON,OFF)

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DVOLLEY_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The demo builds what it runs (volley and volley-target, not the tests and
# fuzz targets), quietly: the configure and build output goes to
# $(BUILD)/demo-build.log, shown only when the build fails.
demo: deps
	@mkdir -p $(BUILD)
	@if ! { $(MAKE) --no-print-directory $(BUILD)/Makefile && \
	        cmake --build $(BUILD) -j $(JOBS) --target volley volley-target; } > $(BUILD)/demo-build.log 2>&1; then \
	    cat $(BUILD)/demo-build.log >&2; \
	    echo "make demo: the build failed (its output above, also in $(BUILD)/demo-build.log)" >&2; exit 1; \
	fi
	@scripts/demo.sh $(BUILD)

# In CI (CI=true) the sanitizer build runs the whole suite as well.
test: test-deps build
	cd $(BUILD) && ctest --output-on-failure -j 2 -LE long
	@if [ "$$CI" = "true" ]; then $(MAKE) --no-print-directory test-asan; fi

test-asan: test-deps build-asan
	cd $(ASAN_BUILD) && ctest --output-on-failure -j 2 -LE long

test-long: build
	@scripts/install-deps.sh $(LONG_PACKAGES)
	cd $(BUILD) && ctest --output-on-failure -L long

bench: build
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	VOLLEY=$(CURDIR)/$(BUILD)/volley bash tests/bench/bench.sh

# The benchmarks of flows: u:get against request(conn), users asleep in
# u:sleep, the same flow in Locust and Artillery (tests/bench/flows.sh).
bench-flows: build
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	VOLLEY=$(CURDIR)/$(BUILD)/volley ARTILLERY_DIR=$(CURDIR)/$(BUILD)/artillery bash tests/bench/flows.sh

install: build
	cmake --install $(BUILD)

# A Debian package of what `make install` installs (CPack, CMakeLists.txt),
# in $(BUILD)/: install it with `sudo apt install ./$(BUILD)/volley_*.deb`.
deb: build
	@scripts/install-deps.sh $(DEB_PACKAGES)
	cd $(BUILD) && cpack -G DEB
	@echo "Debian package: $(CURDIR)/$(BUILD)/$$(cd $(BUILD) && ls -t volley_*.deb | head -n 1)"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
