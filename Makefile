# Thin convenience layer over CMake. The real build is CMakeLists.txt.
#
#   make deps    install the Debian packages the build and tests need (as root),
#                or print the exact apt-get line to run
#   make build   configure build/ (RelWithDebInfo, warnings as errors) and build
#   make test    deps + build + every ctest test (unit, examples, Python,
#                consumers, ABI, headers, Doxygen, sanitizers, valgrind, format,
#                fuzzers); under 10 minutes on 2 cores (docs/testing.md, "Test tiers")
#   make check   deps + build + the unit and Python tests only (under 2 minutes)
#   make demo    deps + build + run every example with --json, print a summary
#   make docs    API reference with Doxygen into build/doxygen/html
#   make bench   deps + build + the benchmark programs of bench/ (not part of make
#                test): bench_event_driven writes build/bench/bench_event_driven.json
#                (BENCH_ARGS, e.g. "--repeat 201"), then tools/speed_targets.py
#                checks the speed targets; compare two builds with
#                tools/compare_bench.py OLD.json NEW.json (docs/benchmarks.md)
#                bench_time_stepping (time per step of every time-stepping scheme on
#                the slider-crank of seed 003) writes build/bench/bench_time_stepping.json;
#                bench/siconos_moreau_jean.py compares with Siconos' MoreauJeanOSI when
#                python3-siconos is installed; bench_world (spheres poured into a box:
#                nscd against ODE's QuickStep and Bullet where found, 1e3 to 1e5 bodies,
#                BENCH_WORLD_ARGS) writes build/bench/bench_world.json
#   make tables  deps + build + tools/slider_crank_tables.py: seed 003's Tables 3-6 in
#                kind (CPU time per step, error (92) of theta2) into
#                build/tables/slider_crank_tables.{json,md} (minutes; not part of make test)
#   make fuzz    deps + a long fuzzing session: every libFuzzer target of tests/fuzz
#                for FUZZ_TIME seconds (default 600), FUZZ_JOBS at a time, on a
#                corpus kept in build/fuzz/long/; e.g. make fuzz FUZZ_TIME=3600
#                FUZZ_TARGETS="fc3d lcp" (see docs/fuzzing.md)
#   make clean   remove build/

BUILD_DIR  ?= build
BUILD_TYPE ?= RelWithDebInfo
# The machine this grew up on has 2 cores shared by several people: default to 2.
JOBS       ?= 2
PYTHON     ?= /usr/bin/python3
# Overridable for a dry run: make deps APT_GET="echo apt-get"
APT_GET    ?= apt-get

DEBIAN_PACKAGES := liblapacke-dev libopenblas-dev libcmocka-dev cmake pkg-config doxygen \
	python3-numpy python3-cffi python3-matplotlib python3-pytest python3-pip python3-setuptools python3-wheel \
	abi-compliance-checker abi-dumper valgrind clang-format gcc g++ make \
	clang libfuzzer-14-dev python3-siconos libfclib-dev libode-dev libbullet-dev \
	libopenmpi-dev openmpi-bin libsuitesparse-dev python3-scipy python3-h5py python3-vtk9

# make bench: arguments of bench_event_driven (default: --repeat 61, a few seconds)
BENCH_ARGS   ?=

# make bench: arguments of bench_world (default: 1e3, 1e4, 1e5 spheres, nscd
# and ODE/Bullet where found; a few minutes), e.g. BENCH_WORLD_ARGS="--bodies 1e4"
BENCH_WORLD_ARGS ?=

# make fuzz: seconds per target, the targets, how many run at once
FUZZ_TIME    ?= 600
FUZZ_TARGETS ?= single_contact lcp fc3d routh event_driven world fclib
FUZZ_JOBS    ?= $(JOBS)

.PHONY: all deps build check test demo docs bench tables fuzz clean

all: build

deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' \
	    || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages are installed"; exit 0; fi; \
	echo "deps: missing Debian packages:$$missing"; \
	if [ "$$(id -u)" -eq 0 ]; then \
	  $(APT_GET) update && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y $$missing; \
	else \
	  echo "deps: not root; install them with:"; \
	  echo "  sudo apt-get install -y$$missing"; \
	  exit 1; \
	fi

build:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DNSCD_WERROR=ON
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: deps
	$(MAKE) --no-print-directory build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The fast tier: the unit and Python tests only, without the slow example
# regressions (label "slow", tests/CMakeLists.txt; no valgrind, no sanitizer
# build, no fuzzers, no portable rerun); `make test` runs everything
# (docs/testing.md, "Test tiers").
check: deps
	$(MAKE) --no-print-directory build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L '^(unit|python)$$' -LE '^slow$$' \
	  -E '^(guide|python_install)$$'

demo: deps
	$(MAKE) --no-print-directory build
	$(PYTHON) tools/demo.py $(BUILD_DIR)

docs: deps
	$(MAKE) --no-print-directory build
	cmake --build $(BUILD_DIR) --target doxygen

# One OpenBLAS thread: no thread pool competing with the timed loop.
bench: deps
	$(MAKE) --no-print-directory build
	OPENBLAS_NUM_THREADS=1 $(BUILD_DIR)/bench/bench_event_driven $(BENCH_ARGS) \
	  >$(BUILD_DIR)/bench/bench_event_driven.json
	cat $(BUILD_DIR)/bench/bench_event_driven.json
	OPENBLAS_NUM_THREADS=1 $(PYTHON) tools/speed_targets.py $(BUILD_DIR) \
	  >$(BUILD_DIR)/bench/speed_targets.json
	OPENBLAS_NUM_THREADS=1 $(BUILD_DIR)/bench/bench_time_stepping \
	  >$(BUILD_DIR)/bench/bench_time_stepping.json
	cat $(BUILD_DIR)/bench/bench_time_stepping.json
	OPENBLAS_NUM_THREADS=1 $(BUILD_DIR)/bench/bench_world --json $(BENCH_WORLD_ARGS) \
	  >$(BUILD_DIR)/bench/bench_world.json
	cat $(BUILD_DIR)/bench/bench_world.json
	@if $(PYTHON) -c "import siconos.kernel" 2>/dev/null; then \
	  OPENBLAS_NUM_THREADS=1 $(PYTHON) bench/siconos_moreau_jean.py $(BUILD_DIR) \
	    >$(BUILD_DIR)/bench/siconos_moreau_jean.json && cat $(BUILD_DIR)/bench/siconos_moreau_jean.json; \
	else echo "bench: python3-siconos not found, no Siconos comparison"; fi

tables: deps
	$(MAKE) --no-print-directory build
	mkdir -p $(BUILD_DIR)/tables
	OPENBLAS_NUM_THREADS=1 $(PYTHON) tools/slider_crank_tables.py $(BUILD_DIR) \
	  --out $(BUILD_DIR)/tables/slider_crank_tables

fuzz: deps
	bash tests/fuzz/build.sh "$(CURDIR)" "$(BUILD_DIR)/fuzz" clang
	printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(FUZZ_JOBS) -I{} \
	  bash tests/fuzz/run.sh "$(BUILD_DIR)/fuzz" {} tests/fuzz/corpus/{} 0 $(FUZZ_TIME)

clean:
	rm -rf $(BUILD_DIR)
