# cuarr -- build, test, benchmark.  `make demo` and `make test` work on a fresh Debian machine
# with the CUDA toolkit: they install Lua 5.4 and busted with apt-get when missing.

LUA        ?= lua5.4
BUSTED     ?= busted
LUA_INCDIR ?= /usr/include/lua5.4
CUDA_HOME  ?= /usr/local/cuda
CC         ?= cc
CFLAGS     ?= -O2 -g
LDFLAGS    ?=
PREFIX     ?= /usr/local
INST_LIBDIR ?= $(PREFIX)/lib/lua/5.4
INST_LUADIR ?= $(PREFIX)/share/lua/5.4
INST_BINDIR ?= $(PREFIX)/bin

BUILD   := build
SOURCES := $(shell find src -name '*.c' | sort)
OBJECTS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SOURCES)) $(BUILD)/obj/kernels_embedded.o
KERNELS := $(sort $(wildcard kernels/include/*.cuh kernels/templates/*.cu))
HEADERS := $(shell find src -name '*.h')
MODULE  := $(BUILD)/cuarr/core.so
# src/core/testing/ holds code only the C tests link; the module leaves it out.
TESTING_OBJECTS := $(filter $(BUILD)/obj/core/testing/%,$(OBJECTS))
MODULE_OBJECTS  := $(filter-out $(TESTING_OBJECTS),$(OBJECTS))
# The core without the Lua binding: what the C tests in spec/c/ link against.
CORE_OBJECTS := $(filter-out $(BUILD)/obj/lua/%,$(OBJECTS))
CTESTS  := $(patsubst spec/c/%.c,$(BUILD)/ctest/%,$(sort $(wildcard spec/c/*.c)))
# The declarations of the embedded kernel sources (tools/embed.sh writes them with the sources).
KERNEL_SOURCES_H := $(BUILD)/gen/kernel_sources.h

# Debian's luaconf.h includes a multiarch header that lives beside the Lua headers' folder.
MULTIARCH  := $(shell $(CC) -print-multiarch 2>/dev/null)
# -fvisibility=hidden: core.so exports only what src/cuarr.h marks CUARR_API (and
# luaopen_cuarr_core); tools/check_exports.sh checks it in `make test`.
ALL_CFLAGS := $(CFLAGS) -std=c11 -Wall -Wextra -fPIC -fvisibility=hidden -D_GNU_SOURCE -pthread \
              -Isrc -Isrc/core -I$(BUILD)/gen -I$(LUA_INCDIR) -I$(LUA_INCDIR)/../$(MULTIARCH) -I$(CUDA_HOME)/include

# Where Lua finds the module and the front end when run from the checkout.
RUN_ENV := LUA_PATH="$(CURDIR)/lua/?.lua;$(CURDIR)/lua/?/init.lua;$(CURDIR)/?.lua;$$LUA_PATH;;" \
           LUA_CPATH="$(CURDIR)/$(BUILD)/?.so;$$LUA_CPATH;;"

.PHONY: all deps ctest check-exports test test-gpu test-compile-all test-gpu-sanitize soak bench \
        demo repl install clean lint format

# The device sort library (see its rule below): minutes of nvcc.  `all` (and so `make test`,
# `make install` and CI) builds it when nvcc is there; `make demo`, and the rockspec (which sets
# CUARR_SORT_LIB_AUTO=driver), only when there is also a CUDA driver to run it (libcuda.so.1 known
# to ldconfig, or nvidia-smi): a machine without a GPU gets to the demo in seconds.
# CUARR_SORT_LIB=1 builds it whatever the machine has (and fails without nvcc), CUARR_SORT_LIB=0
# never; unset, the rule above decides.
NVCC         ?= $(CUDA_HOME)/bin/nvcc
SORT_LIB     := $(BUILD)/cuarr/libcuarr_sort.so
SORT_GENCODE ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
                -gencode arch=compute_80,code=compute_80
CUARR_SORT_LIB      ?=
CUARR_SORT_LIB_AUTO ?= nvcc
HAVE_NVCC   = $(shell command -v $(NVCC) >/dev/null 2>&1 && echo yes)
HAVE_DRIVER = $(shell { /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; } \
                || command -v nvidia-smi >/dev/null 2>&1 && echo yes)
# SORT_WANTED(auto rule): yes when the library is to be built under that rule.
SORT_WANTED = $(strip $(if $(filter 1,$(CUARR_SORT_LIB)),yes,$(if $(filter 0,$(CUARR_SORT_LIB)),,\
                $(if $(HAVE_NVCC),$(if $(filter driver,$(1)),$(HAVE_DRIVER),yes)))))
SORT_TARGET      = $(if $(call SORT_WANTED,$(CUARR_SORT_LIB_AUTO)),$(SORT_LIB),sort-lib-skipped)
DEMO_SORT_TARGET = $(if $(call SORT_WANTED,driver),$(SORT_LIB),sort-lib-skipped)

all: $(MODULE) $(SORT_TARGET)

$(MODULE): $(MODULE_OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) -shared -pthread $(LDFLAGS) -o $@ $(MODULE_OBJECTS) -ldl -lm

# The device sort engine: CUB's radix sorts compiled ahead of time by nvcc from
# src/core/sort/cub/radix_sort.cu into a library beside core.so, which core.so opens with dlopen
# on the first device sort (src/core/sort/sort_loader.c); nothing compiles CUB at run time.  A
# few key types (every dtype is mapped onto them), cubins for sm_90 and sm_80 and PTX for the
# GPUs after (the driver JIT-compiles it once), the architectures compiled in parallel
# (--threads 0); the CUDA runtime linked in statically and its symbols and CUB's kept inside.
# Without nvcc the module builds alone (device sorts are then a NotAvailable error) and make
# says so.
$(SORT_LIB): src/core/sort/cub/radix_sort.cu src/core/sort/key_transform.h \
             src/core/sort/sort_library.h
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 --threads 0 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden \
	  -DCUB_WRAPPED_NAMESPACE=cuarr_cub -DTHRUST_WRAPPED_NAMESPACE=cuarr_thrust $(SORT_GENCODE) \
	  -shared -cudart static -Xlinker --exclude-libs=ALL -o $@ $<
.PHONY: sort-lib-skipped
sort-lib-skipped:
	@if [ "$(CUARR_SORT_LIB)" = 0 ]; then why="CUARR_SORT_LIB=0"; \
	elif [ -z "$(HAVE_NVCC)" ]; then why="no nvcc ($(NVCC))"; \
	else why="no CUDA driver here (CUARR_SORT_LIB=1 builds it anyway)"; fi; \
	echo "$$why: $(SORT_LIB) not built; device sorts will raise NotAvailable"
# Its C test opens the library built here (and says it skipped when there is none).
$(BUILD)/ctest/test_sort_library: $(SORT_TARGET)
$(BUILD)/ctest/test_sort_library: private ALL_CFLAGS += -DCUARR_SORT_LIB='"$(CURDIR)/$(SORT_LIB)"'

# Each object depends on the headers it includes, as the compiler lists them (-MMD), and on the
# Makefile, which holds its flags; the generated header of kernel sources must exist before
# anything compiles.
$(BUILD)/obj/%.o: src/%.c Makefile | $(KERNEL_SOURCES_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The host ufunc loops are worth GCC's vectoriser, which -O2 leaves off.
$(BUILD)/obj/core/ufunc/host_rows_%.o: ALL_CFLAGS += -O3

$(BUILD)/gen/kernels_embedded.c $(KERNEL_SOURCES_H) &: $(KERNELS) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(BUILD)/gen/kernels_embedded.c $(KERNEL_SOURCES_H) $(KERNELS)

$(BUILD)/obj/kernels_embedded.o: $(BUILD)/gen/kernels_embedded.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

-include $(OBJECTS:.o=.d) $(CTESTS:=.d)

# C tests of the core: each program prints `ok - name` / `not ok - name: why` lines and exits
# non-zero when one failed.
$(BUILD)/ctest/%: spec/c/%.c $(CORE_OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ispec/c -MMD -MP -o $@ $< $(CORE_OBJECTS) -ldl -lm

# The fake CUDA driver of tools/fake_cuda (build.sh builds the same, with its checks), for the
# C tests that need a driver's answers without a GPU; with the build's flags, so that the
# sanitizer builds check its copies into "device" memory too.
FAKE_LIBCUDA := $(BUILD)/fake_cuda/libcuda.so.1
$(FAKE_LIBCUDA): tools/fake_cuda/fake_cuda.c tools/fake_cuda/cubin_elf.c tools/fake_cuda/ptx_text.c \
                src/core/cuda/driver.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -std=c11 -Wall -Wextra -D_GNU_SOURCE -shared -fPIC \
	  -fvisibility=hidden -Isrc -Isrc/core -I$(CUDA_HOME)/include -o $@ $<

FAKE_DRIVER_CTESTS := $(addprefix $(BUILD)/ctest/,test_device_facts test_elementwise_key \
                        test_reclaim_frees_input test_fake_cubin test_raw_module \
                        test_comm_checks)
$(FAKE_DRIVER_CTESTS): $(FAKE_LIBCUDA)
$(FAKE_DRIVER_CTESTS): private ALL_CFLAGS += -DCUARR_FAKE_LIBCUDA='"$(CURDIR)/$(FAKE_LIBCUDA)"'

# The stand-in NCCL of tools/fake_cuda/fake_nccl.c (one rank over the fake driver's memory), for
# test_comm_stand_in: the collectives' whole path without GPUs.
FAKE_LIBNCCL := $(BUILD)/fake_cuda/libnccl_stand_in.so
$(FAKE_LIBNCCL): tools/fake_cuda/fake_nccl.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -std=c11 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o $@ $<
$(BUILD)/ctest/test_comm_stand_in: $(FAKE_LIBCUDA) $(FAKE_LIBNCCL)
$(BUILD)/ctest/test_comm_stand_in: private ALL_CFLAGS += \
  -DCUARR_FAKE_LIBCUDA='"$(CURDIR)/$(FAKE_LIBCUDA)"' \
  -DCUARR_FAKE_LIBNCCL='"$(CURDIR)/$(FAKE_LIBNCCL)"'

# The C tests of the Lua binding: the whole module and Lua itself.  The lifecycle and threads
# tests drive the device paths through the fake driver, with a kernel cache of their own.
LUA_LIBDIR ?= $(LUA_INCDIR)/../../lib/$(MULTIARCH)
LUA_CTESTS := $(addprefix $(BUILD)/ctest/,test_array_identity test_lifecycle test_threads)
$(LUA_CTESTS): $(BUILD)/ctest/%: spec/c/%.c $(OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ispec/c -MMD -MP -o $@ $< $(OBJECTS) -L$(LUA_LIBDIR) -llua5.4 -ldl -lm

$(BUILD)/ctest/test_lifecycle $(BUILD)/ctest/test_threads: $(FAKE_LIBCUDA)
$(BUILD)/ctest/test_lifecycle $(BUILD)/ctest/test_threads: private ALL_CFLAGS += \
  -DCUARR_FAKE_LIBCUDA='"$(CURDIR)/$(FAKE_LIBCUDA)"' \
  -DCUARR_TEST_CACHE_DIR='"$(CURDIR)/$(BUILD)/ctest/kernel_cache"'

ctest: $(CTESTS)
	@status=0; for t in $(CTESTS); do $$t || status=1; done; exit $$status

# core.so exports luaopen_cuarr_core and the CUARR_API functions of src/cuarr.h, nothing else.
check-exports: $(MODULE)
	@sh tools/check_exports.sh $(MODULE) src/cuarr.h

# Lua 5.4, its headers, busted and lua-check (whose parser reads the Lua functions that
# cuarr.vectorize and cuarr.jit translate), from Debian's packages, when they are missing
# (CUARR_LUACHECK_PATH set: lua-check is unpacked elsewhere, as on the GPU machine); and a BLAS
# for host arrays' matmul (OpenBLAS, which carries LAPACK too) unless the loader finds one.
deps:
	@if ! command -v $(LUA) >/dev/null || [ ! -f $(LUA_INCDIR)/lua.h ] || ! command -v $(BUSTED) >/dev/null \
	    || { [ ! -f /usr/share/lua/5.1/luacheck/parser.lua ] && [ -z "$$CUARR_LUACHECK_PATH" ]; }; then \
	  echo "installing lua5.4 liblua5.4-dev lua-busted lua-check with apt-get"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq lua5.4 liblua5.4-dev lua-busted lua-check >/dev/null; \
	fi
	@if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so\.0\|libblas\.so\.3'; then \
	  echo "installing libopenblas0 with apt-get"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libopenblas0 >/dev/null; \
	fi

# The C tests that hand every generated kernel to NVRTC: most of `make test`'s time.  `make test`
# runs each only when its stamp ($(BUILD)/ctest/NAME.passed, touched when it passes) is older
# than the test's own sources or the generators it drives: the objects of the kernel generators
# (the *_source.c files, codegen, the ufunc, reduce, scan, copy and user-kernel code, the array
# layouts they read, the testing helpers, the NVRTC loader) and the embedded kernels/, each object
# remade when a header it includes changes.  The memory pools, the driver's other paths and the
# Lua binding are not among them.  CUARR_COMPILE_ALL=1 (as .ci/run sets) or `make
# test-compile-all` runs them regardless.
COMPILE_ALL_CTESTS := test_kernels_compile test_ufunc_kernels_compile test_reduce_compile \
                      test_scan_compile
COMPILE_ALL_STAMPS := $(patsubst %,$(BUILD)/ctest/%.passed,$(COMPILE_ALL_CTESTS))
PLAIN_CTESTS := $(filter-out $(addprefix $(BUILD)/ctest/,$(COMPILE_ALL_CTESTS)),$(CTESTS))
GENERATOR_OBJECTS := $(filter-out $(BUILD)/obj/core/memory/% $(BUILD)/obj/core/cuda/%,\
                       $(CORE_OBJECTS)) $(BUILD)/obj/core/cuda/loader.o
$(COMPILE_ALL_STAMPS): $(BUILD)/ctest/%.passed: spec/c/%.c $(wildcard spec/c/*.h) \
                       $(GENERATOR_OBJECTS) | $(BUILD)/ctest/%
	$(BUILD)/ctest/$* && touch $@

# -j for the builds of `make test`, unless make already runs with a job server (`make -j8 test`).
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
PARALLEL  = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))
MAKE_TEST = MAKE="$(MAKE)" BUILD="$(BUILD)" LUA="$(LUA)" BUSTED="$(BUSTED)" MODULE="$(MODULE)" \
            PLAIN_CTESTS="$(PLAIN_CTESTS)" COMPILE_ALL_CTESTS="$(COMPILE_ALL_CTESTS)" \
            sh tools/make_test.sh

# Everything this machine can run (tools/make_test.sh): the module and the C tests built in
# parallel, the C tests run one by one, then the specs; #gpu specs are counted as skipped
# without a device, in one line of the summary that ends the output.
test: deps
	@$(MAKE) --no-print-directory $(PARALLEL) all $(CTESTS)
	@$(RUN_ENV) $(MAKE_TEST)

# Everything, and fails when no device is usable.
test-gpu: deps
	@$(MAKE) --no-print-directory $(PARALLEL) all $(CTESTS)
	@$(RUN_ENV) CUARR_REQUIRE_GPU=1 CUARR_COMPILE_ALL=1 $(MAKE_TEST)

# The compile-all C tests, whatever their stamps say.
test-compile-all:
	@$(MAKE) --no-print-directory $(PARALLEL) $(addprefix $(BUILD)/ctest/,$(COMPILE_ALL_CTESTS))
	@rm -f $(COMPILE_ALL_STAMPS)
	@$(MAKE) --no-print-directory -j1 $(COMPILE_ALL_STAMPS)

# A Lua 5.4 prompt with the checkout's module and front end, `cuarr` loaded as a global: the one
# place cuarr is a global (a program says `local cuarr = require "cuarr"`).
repl: deps
	@$(MAKE) --no-print-directory $(PARALLEL) all
	@$(RUN_ENV) $(LUA) -i -e 'cuarr = require "cuarr"'

# The #gpu specs under NVIDIA's compute-sanitizer (tools/gpu_sanitize.sh; reports under
# $(GPU_SANITIZE_LOGS)): memcheck over all of them, racecheck and synccheck over one small case
# of each kernel whose threads share memory (reductions, scans, norms, user kernels) and the
# ReductionKernel specs.
GPU_SANITIZE_LOGS  ?= $(BUILD)/gpu-sanitize
GPU_SANITIZE_SPECS ?= spec
GPU_RACE_SPECS     ?= spec/kernel_races_spec.lua spec/reduction_kernel_spec.lua
test-gpu-sanitize: deps
	@$(MAKE) --no-print-directory $(PARALLEL) all
	@status=0; \
	$(RUN_ENV) sh tools/gpu_sanitize.sh memcheck $(GPU_SANITIZE_LOGS) $(GPU_SANITIZE_SPECS) || status=1; \
	for tool in racecheck synccheck; do \
	  $(RUN_ENV) sh tools/gpu_sanitize.sh $$tool $(GPU_SANITIZE_LOGS) $(GPU_RACE_SPECS) || status=1; \
	done; exit $$status

# A million small operations in one state (tools/soak.lua): the RSS stays flat after the
# warm-up and the pools' used_bytes come back to their baseline.  The device paths run on the
# fake driver unless CUARR_LIBCUDA names a driver; SOAK_OPS and SOAK_RSS_MIB change the count
# and the bound.
SOAK_OPS ?= 1000000
SOAK_RSS_MIB ?= 4
soak: deps
	@$(MAKE) --no-print-directory $(PARALLEL) all $(FAKE_LIBCUDA)
	CUARR_LIBCUDA="$${CUARR_LIBCUDA:-$(CURDIR)/$(FAKE_LIBCUDA)}" $(RUN_ENV) \
	  $(LUA) tools/soak.lua $(SOAK_OPS) $(SOAK_RSS_MIB)

# The machine's own ceilings, measured with the raw driver API (bench/ceilings.c).
$(BUILD)/bench/ceilings: bench/ceilings.c $(CORE_OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(CORE_OBJECTS) -ldl -lm

# The ceilings first (without a usable GPU this stops here, with the reason on stderr; without
# cuBLAS only its rates are left out), then cuarr's own figures beside them (bench/run.lua:
# transfers, elementwise ops, per-op cost, ElementwiseKernel compile and disk-cache load;
# reductions, axis sums, cumsum, per-op and item() cost, ReductionKernel compile and disk-cache
# load; RawKernel, graphs, jit, random; matrix products against the raw cuBLAS call), then the
# same cases through CuPy and PyTorch for cuarr/peer ratios.  The peers cost some tens of seconds
# of device time, mostly imports and fresh processes, so they run by default: CUARR_PEERS=0
# skips them, and a peer that is not installed is reported, not fatal.  CUARR_BENCH_SUITES
# (comma-separated, of transfers, elementwise, reduction, raw_kernels, graphs, jit, random,
# matmul, linalg; default all) picks suites: CUARR_BENCH_SUITES=matmul make bench runs the
# products alone.  A cuarr case that fails still lets the peers run; make fails afterwards.
bench: deps
	@$(MAKE) --no-print-directory $(PARALLEL) all $(BUILD)/bench/ceilings
	$(BUILD)/bench/ceilings > $(BUILD)/bench/ceilings.txt \
	  || { cat $(BUILD)/bench/ceilings.txt; exit 1; }
	@status=0; \
	CUARR_CEILINGS=$(BUILD)/bench/ceilings.txt CUARR_BENCH_OUT=$(BUILD)/bench/cuarr.txt \
	  $(RUN_ENV) $(LUA) bench/run.lua || status=1; \
	if [ "$${CUARR_PEERS:-1}" = 0 ]; then echo "peers skipped (CUARR_PEERS=0)"; \
	elif ! command -v python3 >/dev/null; then echo "peers skipped: no python3"; \
	else python3 bench/compare_peers.py $(BUILD)/bench/cuarr.txt; fi; \
	exit $$status

# The module built in parallel, and the device sort library only where a driver could use it
# (see CUARR_SORT_LIB above): the first command a user types gets to the demo quickly.
demo: deps
	@$(MAKE) --no-print-directory $(PARALLEL) $(MODULE) $(DEMO_SORT_TARGET)
	$(RUN_ENV) $(LUA) examples/quickstart.lua

# docs/api.md, the API index, from lua/cuarr/api_index.lua (spec/api_index_spec.lua checks it is
# current and complete).
docs:
	$(RUN_ENV) $(LUA) tools/api_index.lua docs/api.md
.PHONY: docs

install: all
	install -d $(DESTDIR)$(INST_LIBDIR)/cuarr $(DESTDIR)$(INST_LUADIR)/cuarr/jit
	install -m 755 $(MODULE) $(DESTDIR)$(INST_LIBDIR)/cuarr/core.so
	if [ -f $(SORT_LIB) ]; then install -m 755 $(SORT_LIB) $(DESTDIR)$(INST_LIBDIR)/cuarr/; fi
	install -m 644 lua/cuarr/*.lua $(DESTDIR)$(INST_LUADIR)/cuarr/
	install -m 644 lua/cuarr/jit/*.lua $(DESTDIR)$(INST_LUADIR)/cuarr/jit/
	install -d $(DESTDIR)$(INST_BINDIR)
	install -m 755 bin/cuarr-run $(DESTDIR)$(INST_BINDIR)/cuarr-run
	@printf '%s\n' "" "cuarr is installed. Unless these are among lua5.4's default paths, a shell needs:" \
	  "  export LUA_PATH=\"$(INST_LUADIR)/?.lua;$(INST_LUADIR)/?/init.lua;\$$LUA_PATH;;\"" \
	  "  export LUA_CPATH=\"$(INST_LIBDIR)/?.so;\$$LUA_CPATH;;\"" \
	  "  export PATH=\"$(INST_BINDIR):\$$PATH\"    # for cuarr-run, the multi-GPU launcher"

# `make sanitize`: the module, the C tests and a Lua host (tools/fake_cuda/lua_main.c, linked with
# liblua5.4.a: Debian's lua5.4 has no sanitizer runtime) built with AddressSanitizer and
# UndefinedBehaviorSanitizer into build/sanitize; then the C tests with LeakSanitizer on, the
# busted specs run by that host (without a driver: under the stand-in one the #gpu specs' results
# are garbage), and a short run of the fuzzer through the stand-in driver, which reaches the device
# paths.  Then a ThreadSanitizer build into build/tsan and spec/c/test_threads.c under it (when
# that test exists).  tools/sanitize/ holds the suppressions, each with why it is there.
.PHONY: sanitize sanitize-asan sanitize-tsan fuzz fuzz-run fuzz-gpu
SAN_BUILD  := build/sanitize
TSAN_BUILD := build/tsan
SAN_FLAGS  := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined
TSAN_FLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
# The compile-everything tests hand some 8000 generated kernels to NVRTC, which is not
# instrumented; the generators they drive are what the other C tests, the specs and the fuzzer
# run under the sanitizers, so the sanitize build leaves them out (minutes saved, nothing
# unseen).
SAN_SKIPPED_CTESTS := $(COMPILE_ALL_CTESTS)
SAN_CTESTS := $(filter-out $(addprefix $(BUILD)/ctest/,$(SAN_SKIPPED_CTESTS)),$(CTESTS))
SAN_LUA    := $(BUILD)/lua
LUA_LIBA   ?= /usr/lib/$(MULTIARCH)/liblua5.4.a
SAN_SUPP   := $(CURDIR)/tools/sanitize
# allocator_may_return_null: under ASan host arrays come from malloc (buffer.c), and a size too
# large for the host must be the OutOfMemoryError the specs expect, not an abort.
SAN_ENV    := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1:allocator_may_return_null=1 \
              LSAN_OPTIONS=suppressions=$(SAN_SUPP)/lsan.supp:print_suppressions=0 \
              UBSAN_OPTIONS=print_stacktrace=1:suppressions=$(SAN_SUPP)/ubsan.supp \
              TSAN_OPTIONS=halt_on_error=1:suppressions=$(SAN_SUPP)/tsan.supp \
              CUARR_CACHE_DIR=$(CURDIR)/$(BUILD)/kernel_cache
# The fuzzer's bounds: `make fuzz FUZZ_SEED=7 FUZZ_CALLS=1000000 FUZZ_SECONDS=3600`;
# FUZZ_FIRST=i FUZZ_CALLS=1 replays call i alone (a finding's repro line says so), FUZZ_TRACE=1
# prints each call before it is made (after a crash, from the last progress line).  Sizes the
# fuzzer makes up are bounded (ASan returns NULL past 64 MiB, the device pool stops at 64 MiB)
# so that a call that is allowed to succeed does not exhaust the machine.
FUZZ_SEED    ?= 1
FUZZ_CALLS   ?= 100000
FUZZ_SECONDS ?= 0
FUZZ_FIRST   ?= 1
FUZZ_TRACE   ?=
SAN_FUZZ_CALLS ?= 5000
# The fuzzer runs without LeakSanitizer (the C tests and the specs have it): its tracer crashed once
# at the exit of a clean run ("Tracer caught signal 11"), which would fail CI for no finding.
FUZZ_RUN = $(SAN_ENV) \
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=64 \
  CUARR_GPU_MEMORY_LIMIT=67108864 $(RUN_ENV) CUARR_LIBCUDA=$(CURDIR)/$(FAKE_LIBCUDA) \
  $(SAN_LUA) tools/fuzz/fuzz.lua $(if $(FUZZ_TRACE),--trace)

# A Lua 5.4 host built with the flags of the build it lies in (see tools/fake_cuda/lua_main.c),
# which keeps the modules it loads mapped until exit (tools/sanitize/keep_modules.c).
$(SAN_LUA): tools/fake_cuda/lua_main.c tools/sanitize/keep_modules.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -std=c11 -Wall -Wextra -I$(LUA_INCDIR) \
	  -I$(LUA_INCDIR)/../$(MULTIARCH) -o $@ tools/fake_cuda/lua_main.c tools/sanitize/keep_modules.c \
	  -Wl,-E -Wl,--whole-archive $(LUA_LIBA) -Wl,--no-whole-archive -lm -ldl

# The same as a library for the lua5.4 that the specs start (tools/sanitize/bin/lua5.4 preloads
# it and the ASan runtime).
SAN_KEEP_MODULES := $(BUILD)/keep_modules.so
$(SAN_KEEP_MODULES): tools/sanitize/keep_modules.c Makefile
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -std=c11 -Wall -Wextra -shared -fPIC -o $@ $<
SAN_PRELOAD = SANITIZE_PRELOAD="$$($(CC) -print-file-name=libasan.so) \
                                $(CURDIR)/$(SAN_KEEP_MODULES)" \
              PATH="$(CURDIR)/tools/sanitize/bin:$$PATH"

# The ThreadSanitizer run goes on after a failed ASan one: the report says both.
sanitize: deps
	@status=0; \
	$(MAKE) --no-print-directory BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
	  sanitize-asan || status=1; \
	$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) CFLAGS="$(TSAN_FLAGS)" \
	  LDFLAGS="$(TSAN_FLAGS)" sanitize-tsan || status=1; \
	exit $$status

# These two run inside the sanitize build (BUILD and the flags set by `make sanitize`).
# The module, not `all`: nothing here runs on a device (device sorts are a NotAvailable under the
# stand-in); the device sort library is built only for test_sort_library, which checks its exports.
sanitize-asan:
	@$(MAKE) --no-print-directory $(PARALLEL) $(MODULE) $(SAN_CTESTS) $(SAN_LUA) $(SAN_KEEP_MODULES) \
	  $(FAKE_LIBCUDA)
	@echo "sanitize: C tests under ASan, UBSan and LSan ($(SAN_SKIPPED_CTESTS) left out)"
	@status=0; for t in $(SAN_CTESTS); do \
	  $(SAN_ENV) $$t || { echo "not ok - $$t exited $$?"; status=1; }; \
	done; exit $$status
	@echo "sanitize: the specs under ASan, UBSan and LSan (install_spec's make install: a plain one)"
	@# make puts command-line variables (CFLAGS, LDFLAGS, BUILD) in its children's environment
	@# too: install_spec's make would build the plain build/ with the sanitizer flags.
	@# LeakSanitizer's tracer crashes at random at exit: tools/sanitize/retry_lsan_tracer.sh runs
	@# the specs once more when that, and nothing else, failed them.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS -u BUILD $(SAN_ENV) $(RUN_ENV) $(SAN_PRELOAD) \
	  sh tools/sanitize/retry_lsan_tracer.sh $(SAN_LUA) $$(command -v $(BUSTED)) -o utfTerminal spec
	@echo "sanitize: the fuzzer through the stand-in driver"
	$(FUZZ_RUN) --seed $(FUZZ_SEED) --calls $(SAN_FUZZ_CALLS) --seconds $(FUZZ_SECONDS)

sanitize-tsan:
ifneq ($(wildcard spec/c/test_threads.c),)
	@$(MAKE) --no-print-directory $(PARALLEL) $(BUILD)/ctest/test_threads $(FAKE_LIBCUDA)
	@echo "sanitize: spec/c/test_threads.c under TSan"
	$(SAN_ENV) CUARR_LIBCUDA=$(CURDIR)/$(FAKE_LIBCUDA) $(BUILD)/ctest/test_threads
else
	@echo "sanitize: no spec/c/test_threads.c yet: the ThreadSanitizer run is skipped"
endif

# `make fuzz`: the random-call fuzzer of tools/fuzz/ run by the ASan + UBSan module and host,
# through the stand-in driver.
fuzz: deps
	@$(MAKE) --no-print-directory BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
	  $(PARALLEL) fuzz-run

# `make fuzz-gpu` (the GPU machine): the same fuzzer against the real driver -- the plain build,
# no stand-in, no ASan -- under compute-sanitizer memcheck (tools/fuzz/gpu_fuzz.sh), FUZZ_CALLS
# (default 100000) calls.  Where there is no compute-sanitizer or no GPU it says so and stops
# before building anything.
FUZZ_GPU_LOGS ?= $(BUILD)/fuzz-gpu
fuzz-gpu: deps
	@$(RUN_ENV) sh tools/fuzz/gpu_fuzz.sh check
	@$(MAKE) --no-print-directory $(PARALLEL) all
	@$(RUN_ENV) sh tools/fuzz/gpu_fuzz.sh run $(FUZZ_GPU_LOGS) --seed $(FUZZ_SEED) \
	  --first $(FUZZ_FIRST) --calls $(FUZZ_CALLS) --seconds $(FUZZ_SECONDS) $(if $(FUZZ_TRACE),--trace)

# Inside the sanitize build, as sanitize-asan.
fuzz-run: all $(SAN_LUA) $(FAKE_LIBCUDA)
	$(FUZZ_RUN) --seed $(FUZZ_SEED) --first $(FUZZ_FIRST) --calls $(FUZZ_CALLS) \
	  --seconds $(FUZZ_SECONDS)

# The files clang-format keeps in the repository's style (.clang-format): the C sources and
# headers, the C tests, the benchmarks' and tools' C, and the CUDA C of kernels/.  `make lint`
# fails on a file that `make format` would change.
FORMATTED := $(SOURCES) $(HEADERS) $(sort $(wildcard spec/c/*.c spec/c/*.h)) \
             $(sort $(wildcard bench/*.c)) $(sort $(shell find tools -name '*.c')) $(KERNELS) \
             $(sort $(wildcard src/core/sort/cub/*.cu))
CLANG_FORMAT ?= clang-format

lint:
	$(CLANG_FORMAT) --dry-run -Werror $(FORMATTED)

format:
	$(CLANG_FORMAT) -i $(FORMATTED)

clean:
	rm -rf $(BUILD)
