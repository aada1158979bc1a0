# clc-pack — build, test, pack. See README.md.
#   make            the tool (build/clc-pack), the library (build/libclcpack.{a,so}) and
#                   the load-only library (build/libclcpack_load.{a,so}; loader/README.md)
#   make pack       a pack for the default device with the default widths and work-groups
#   make test       every test (prints "N passed, N failed"; tests/README.md)
#   make check      the driver-free tests only: no OpenCL device, root or network
#   make golden     the golden-output tests' files refreshed from what clc-pack prints now (shows git diff)
#   make bench      benchmarks: tables and charts in docs/bench/<device>/ (docs/BENCH.md)
#   make fuzz       fuzz the parsers for FUZZ_SECONDS in all (clang; docs/ROBUSTNESS.md)
#   make test-sanitize / test-tsan / test-valgrind   the tests under ASan+UBSan, TSan, valgrind
#   make loader-lines  the load-only library's lines (LOAD_MIN=1: its core; docs/BENCH.md)
#   make windows    the Windows library (clcpack.dll, import and static libraries) in build-win/, with MinGW (docs/PLATFORMS.md)
#   V=1             full command lines

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
B       := build

# CPPFLAGS, CFLAGS and LDFLAGS are the user's (GNU conventions): what the
# build needs is kept apart (CLC_CPPFLAGS, WARN) and comes first, so
# `make CPPFLAGS=-I/opt/khronos` adds a folder instead of replacing ours.
CFLAGS   ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
# Warnings stop the build only when asked (.ci/run does): a newer compiler or
# headers outside the system folders must not break a user's build.
WERROR   ?= 0
ifeq ($(WERROR),1)
WARN     += -Werror
endif
# The layers (docs/ARCHITECTURE.md, "Layers"): the files of each folder may
# include the headers of their own folder and of the folders on its line,
# nothing else ("public" is the library's public headers, copied alone into
# $(B)/include). Each object is compiled with only its folder's -I paths, so
# a wrong include does not compile; tests/cli/cli_layers.sh checks every
# #include against this same table. clc/main/ is the composition root: the
# only folder that knows both the command line and the seeds' plug-in.
LAYER.clc/main    := clc/cli clc/run clc/tune clc/seeds clc/program clc/worker clc/rcache clc/engine clc/vendors clc/capture clc/checks clc/util formats loader/common public
LAYER.clc/cli     := clc/tune clc/run clc/program clc/worker clc/rcache clc/engine clc/vendors clc/capture clc/checks clc/util formats loader/common public
# The pack run (clc-pack [pack] and the packing of clc-pack tune) and the
# command-line support it shares with the commands: options, reports,
# files, devices. Below the commands, which call it; it calls none of them.
LAYER.clc/run     := clc/program clc/rcache clc/engine clc/vendors clc/checks clc/util formats loader/common public
LAYER.clc/seeds   := clc/tune clc/program clc/engine clc/vendors clc/checks clc/util formats loader/common public
# The tuner (docs/TUNING.md, "Tuning any program from a T1 spec"): T1
# specs read, the space and its conditions, the strategies, the timing
# worker and T4 results; below the commands, above the build engine.
LAYER.clc/tune    := clc/program clc/engine clc/vendors clc/checks clc/util formats loader/common public
LAYER.clc/program := clc/engine clc/vendors clc/checks clc/util formats loader/common public
# The build worker process's body: the build, the offline toolchains and
# the remote cache together (the cache stores the build's results, so it
# sits above the engine, and the worker above both).
LAYER.clc/worker  := clc/rcache clc/engine clc/vendors clc/checks clc/util formats loader/common public
LAYER.clc/rcache  := clc/engine clc/vendors clc/checks clc/util formats loader/common public
LAYER.clc/engine  := clc/vendors clc/checks clc/util formats loader/common public
# The vendors' toolchains and binary forms (docs/vendors/), and the
# capture reader: each knows its tools or files, not the build.
LAYER.clc/vendors := clc/util loader/common public
LAYER.clc/capture := clc/util formats public
LAYER.clc/checks  := clc/util loader/common public
LAYER.clc/util    := loader/common
LAYER.formats     := loader/common public
LAYER.preload     := formats loader/common public
LAYER.preload/shim :=
# The library by what it does (loader/README.md, docs/ARCHITECTURE.md):
# read/ opens, looks up and decodes; load/ (devices, forms, the rebuild
# cache) and write/ (the writer) use read/, never the other way, so the
# load-only library (read/, load/, common/) holds no writer code
# (tests/cli/cli_load_only.sh). Its public headers are loader/include/
# ("public"; they include only each other).
LAYER.loader/include :=
LAYER.loader/read  := loader/common public
LAYER.loader/load  := loader/read loader/common public
LAYER.loader/write := loader/read loader/common public
# The library's common code, as zstd's lib/common/: the platform layer and
# the helpers every part of the library uses (errors, OpenCL error names,
# atomic files, SHA-256), compiled into libclcpack (hidden), whose archive
# the tool and the interposer link to use them too.
LAYER.loader/common := public
PUB_DIR  := $(B)/include
PUB_H    := $(addprefix $(PUB_DIR)/,$(notdir $(wildcard loader/include/*.h)))
layer_dirs = $(patsubst public,$(PUB_DIR),$(LAYER.$(patsubst %/,%,$(dir $(1)))))
# A source's -I paths: its folder's row, or, for a folder outside the table
# (tests, benches, fuzz programs), every folder.
ALL_INC  := -Iloader/include -Iloader/read -Iloader/load -Iloader/write -Iloader/common -Iformats $(patsubst %/,-I%,$(sort $(dir $(wildcard clc/*/*.c))))
inc_of   = $(if $(filter undefined,$(origin LAYER.$(patsubst %/,%,$(dir $(1))))),$(ALL_INC),$(addprefix -I,$(call layer_dirs,$(1))))
CLC_CPPFLAGS := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DCL_TARGET_OPENCL_VERSION=120
DEPFLAGS := -MMD -MP
# What the tool and a program linking libclcpack.a need (make print-libs;
# the pkg-config file's Libs.private is the same less -lOpenCL, which is
# public): -lOpenCL -lz, -ldeflate and -lzstd as built, -lpthread -lm.
LDLIBS_CL := -lOpenCL -lz
# libdeflate inflates blobs faster than zlib (optional; zlib stays the
# fallback): LIBDEFLATE=auto uses it when its header and library are there.
LIBDEFLATE ?= auto
ifeq ($(LIBDEFLATE),auto)
LIBDEFLATE := $(shell printf '\043include <libdeflate.h>\nint main(void){return !libdeflate_alloc_decompressor;}\n' | \
	$(CC) -x c - -o /dev/null -ldeflate >/dev/null 2>&1 && echo 1 || echo 0)
endif
ifeq ($(LIBDEFLATE),1)
CLC_CPPFLAGS += -DCLCPK_HAVE_LIBDEFLATE
LDLIBS_CL += -ldeflate
endif
# zstd writes packs of format 4 (zstd codecs, trained dictionaries) and reads
# them (docs/FORMAT.md). ZSTD=auto uses it when its headers and library are
# there; ZSTD=0 builds a library that writes zlib packs (formats 1-3) and
# refuses zstd blobs with CLCPACK_E_VERSION naming the codec.
ZSTD ?= auto
ifeq ($(ZSTD),auto)
ZSTD := $(shell printf '\043include <zstd.h>\n\043include <zdict.h>\nint main(void){return !ZSTD_createDCtx || !ZDICT_trainFromBuffer;}\n' | \
	$(CC) -x c - -o /dev/null -lzstd >/dev/null 2>&1 && echo 1 || echo 0)
endif
ifeq ($(ZSTD),1)
CLC_CPPFLAGS += -DCLCPK_HAVE_ZSTD
LDLIBS_CL += -lzstd
endif
LDLIBS_CL += -lpthread -lm
COMMA := ,
LIBS_PRIVATE := $(filter-out -lOpenCL,$(LDLIBS_CL))

# libcurl for the remote cache (docs/REMOTE_CACHE.md; optional: without it
# --remote-cache says it is not available): CURL=auto uses it when its header
# and library are there, CURL=0 builds without it.
CURL ?= auto
ifeq ($(CURL),auto)
CURL := $(shell printf '\043include <curl/curl.h>\nint main(void){return !curl_version;}\n' | \
	$(CC) -x c - -o /dev/null -lcurl >/dev/null 2>&1 && echo 1 || echo 0)
endif
# What the tool and the programs linking libclc.a need besides LDLIBS_CL.
LDLIBS_CLC := $(LDLIBS_CL)
# jansson reads and writes the tuner's JSON (T1 specs, T4 results; a kept
# library, which reports the line and column of a syntax error).
LDLIBS_CLC += -ljansson
ifeq ($(CURL),1)
CLC_CPPFLAGS += -DCLC_HAVE_CURL
LDLIBS_CLC += -lcurl
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC  := $(sort $(wildcard loader/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/pic/%.o)
FORMATS_SRC := $(sort $(wildcard formats/*.c))
CLC_SRC  := $(sort $(filter-out clc/main/main.c,$(wildcard clc/*/*.c))) $(FORMATS_SRC)
CLC_OBJ  := $(CLC_SRC:%.c=$(B)/%.o)
# The C tests by kind (tests/README.md): unit/ never opens an OpenCL
# platform, device/ does (a real driver or a stub); a test_*.c still at the
# top of tests/ builds too. Every program lands in $(B)/tests/ alike.
TEST_DIRS := tests/unit tests/device tests
TEST_SRC := $(sort $(foreach d,$(TEST_DIRS),$(wildcard $(d)/test_*.c)))
TEST_BIN := $(addprefix $(B)/tests/,$(notdir $(TEST_SRC:.c=)))
UNIT_BIN := $(addprefix $(B)/tests/,$(notdir $(basename $(wildcard tests/unit/test_*.c))))
TEST_COMMON := $(sort $(wildcard tests/common/*.c))
TEST_COMMON_OBJ := $(TEST_COMMON:%.c=$(B)/%.o)
# The codecs bench calls zstd itself: built only where the library has it.
BENCH_SRC := $(sort $(filter-out $(if $(filter 1,$(ZSTD)),,tests/bench/codecs.c),$(wildcard tests/bench/*.c)))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(B)/bench/%)
BENCH_COMMON_OBJ := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard tests/bench/common/*.c)))
.SECONDARY: $(BENCH_COMMON_OBJ)

# The shared library's ABI (docs/API.md): soname libclcpack.so.MAJOR, every
# exported symbol versioned CLCPACK_1.0 by loader/clcpack.map (the rest is
# hidden by -fvisibility=hidden and the map's local: *).
SONAME := libclcpack.so.1
LIB_MAP := loader/clcpack.map

# The load-only library (loader/README.md): loader/read/, load/ and
# common/ without the writer, for an application that only loads packs.
# libclcpack_load.so.1 exports the functions of clcpack.h and
# clcpack_inspect.h at libclcpack's versions (loader/clcpack_load.map);
# libclcpack_load.a is the same objects. It imports nothing of the writer
# (tests/cli/cli_load_only.sh). Its optional parts are each on (1) by
# default and left out with NAME=0; LOAD_MIN=1 leaves them all out, the
# core `make loader-lines LOAD_MIN=1` counts. A part left out takes its
# files and its functions with it (a call of one does not link):
#   LOAD_REBUILD_CACHE  the rebuild cache (clcpack_cache_folder, CLCPACK_LOAD_CACHE)
#   LOAD_BEST_VARIANT   clcpack_best_variant, clcpack_choice_key
#   LOAD_NEAREST        a missed key's message names the nearest entries
#   LOAD_SIMD_CRC       the CRC-32 by the CPU's instructions (else zlib's crc32)
#   LOAD_RESOURCES      clcpack_open_resource (a pack in a Windows module)
#   LOAD_POCL_NOTE      the load report's note on a PoCL binary's work-group functions
#   LOAD_INSPECT        the functions of clcpack_inspect.h
#   LOAD_LOOKUP_TABLE   a pack file's open and loads read what they need through its
#                       lookup table (format 5); else the whole index is read at open
LOAD_SONAME := libclcpack_load.so.1
LOAD_MAP := loader/clcpack_load.map
LOAD_PARTS := REBUILD_CACHE BEST_VARIANT NEAREST SIMD_CRC RESOURCES POCL_NOTE INSPECT LOOKUP_TABLE
$(foreach p,$(LOAD_PARTS),$(eval LOAD_$(p) ?= $(if $(filter 1,$(LOAD_MIN)),0,1)))
# Each part's files (one that two parts use goes when both are off) and
# exported functions.
LOAD_FILES.REBUILD_CACHE := loader/load/rebuild_cache.c loader/common/file_atomic.c \
	loader/common/make_dirs.c loader/common/path.c loader/common/text_format.c
LOAD_NAMES.REBUILD_CACHE := clcpack_cache_folder
LOAD_FILES.BEST_VARIANT := loader/load/best_variant.c
LOAD_NAMES.BEST_VARIANT := clcpack_best_variant clcpack_choice_key
LOAD_FILES.NEAREST := loader/read/key_miss.c
LOAD_FILES.SIMD_CRC := loader/read/crc32_x86.c loader/read/crc32_arm.c
LOAD_FILES.RESOURCES := loader/read/pack_resource.c
LOAD_NAMES.RESOURCES := clcpack_open_resource
LOAD_FILES.POCL_NOTE := loader/load/pocl_note.c loader/common/pocl_binary.c loader/common/text_format.c
LOAD_FILES.INSPECT := loader/read/pack_inspect.c loader/read/lookup_check.c
LOAD_FILES.LOOKUP_TABLE := loader/read/pack_lookup.c
LPAREN := (
LOAD_NAMES.INSPECT := $(shell sed -n 's/^CLCPACK_API[^$(LPAREN)]*[ *]\(clcpack_[a-z0-9_]*\)$(LPAREN).*/\1/p' \
	loader/include/clcpack_inspect.h)
load_off = $(foreach p,$(LOAD_PARTS),$(if $(filter 0,$(LOAD_$(p))),$($(1).$(p))))
load_on = $(foreach p,$(LOAD_PARTS),$(if $(filter 0,$(LOAD_$(p))),,$($(1).$(p))))
# The files of a build with a part left out are compiled with -DCLCPK_NO_<PART> (its header's
# stand-ins: rebuild_cache.h, key_miss.h, pocl_note.h, pack_lookup.h, crc32.c).
LOAD_DEFS := $(foreach p,$(LOAD_PARTS),$(if $(filter 0,$(LOAD_$(p))),-DCLCPK_NO_$(p)))
# The tool's own helpers (fd_io.c) and the other system's platform file stay out.
LOAD_SRC := $(filter-out loader/write/% loader/common/fd_io.c loader/common/platform_win32.c loader/common/strbuf.c \
	$(filter-out $(call load_on,LOAD_FILES),$(call load_off,LOAD_FILES)),$(LIB_SRC))
LOAD_NAMES_OUT := $(call load_off,LOAD_NAMES)
# Built with every part: libclcpack's own objects; else objects of their own.
LOAD_OBJDIR := $(if $(strip $(LOAD_DEFS)),$(B)/pic-load,$(B)/pic)
LOAD_OBJ := $(LOAD_SRC:%.c=$(LOAD_OBJDIR)/%.o)

# The interposer (preload/, docs/RECORD.md) that clc-pack record/run load into
# unmodified applications with LD_PRELOAD. It links no OpenCL loader, and
# exports only the OpenCL calls it wraps (preload/exports.map): its copy of
# libclcpack stays private.
PRELOAD_SRC := $(sort $(wildcard preload/*.c)) $(FORMATS_SRC)
PRELOAD_OBJ := $(PRELOAD_SRC:%.c=$(B)/pic/%.o)
$(PRELOAD_OBJ): CLC_CPPFLAGS := -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300
$(B)/clc/cli/preload_launch.o: CLC_CPPFLAGS += -DCLCPACK_LIBDIR='"$(LIBDIR)"'
SHIM := $(B)/clcpack-opencl/libOpenCL.so.1
SHIM_STUB := $(B)/clcpack-opencl/stub/libclcpack-real-opencl.so.1

# The stub OpenCL driver the tests load through the ICD loader to play an
# Intel and an AMD GPU (tests/stubs/gpu_driver/README.md): a real ICD, built with
# the OpenCL 3.0 dispatch table, exporting only what cl_khr_icd looks up.
STUB_SRC := $(sort $(wildcard tests/stubs/gpu_driver/*.c))
STUB_OBJ := $(STUB_SRC:%.c=$(B)/pic/%.o)
STUB_ICD := $(B)/tests/libclcstub.so
# A vendors folder naming it, for trying it by hand:
#   OCL_ICD_VENDORS=build/tests/stub-vendors build/clc-pack --list-devices
STUB_VENDORS := $(B)/tests/stub-vendors/clcstub.icd
$(STUB_OBJ): CLC_CPPFLAGS := -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300

.PHONY: print-libs loader-lines FORCE all deps pack test check golden bench fuzz test-sanitize test-tsan test-valgrind clean install uninstall windows windows-install
all: $(B)/clc-pack $(B)/libclcpack.a $(B)/libclcpack.so $(B)/libclcpack_load.a $(B)/libclcpack_load.so \
	$(B)/libclcpack-preload.so $(SHIM) $(PUB_H)

# What a program linking build/libclcpack.a or build/libclcpack_load.a
# needs besides it (the examples built in-tree use it).
print-libs:
	@echo $(LDLIBS_CL)


# Installs missing Debian packages when root on a Debian-like system, else
# prints the command to run and stops. Only `make deps`, `make pack` and
# `make test` run it: `make` and `make install` need a C compiler, the
# OpenCL headers, the ICD loader and zlib, and never install anything.
deps:
	$(Q)sh scripts/deps.sh

# The public headers alone, where the layers above the library find them
# (kept: only order-only prerequisites name them, which would otherwise make
# them intermediate files that make deletes).
.SECONDARY: $(PUB_H)
$(PUB_DIR)/%.h: loader/include/%.h
	@mkdir -p $(dir $@)
	$(Q)ln -sf $(call relpath,$(abspath $(dir $@)),$(abspath $<)) $@

$(B)/pic/%.o: %.c | $(PUB_H)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CLC_CPPFLAGS) $(call inc_of,$<) $(CPPFLAGS) -DCLCPACK_BUILDING $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden $(DEPFLAGS) -c -o $@ $<

$(B)/%.o: %.c | $(PUB_H)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CLC_CPPFLAGS) $(call inc_of,$<) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(B)/libclcpack.a: $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libclcpack.so: $(LIB_OBJ) $(LIB_MAP)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(LIB_MAP) -Wl,-z,defs $(LDFLAGS) \
		-o $(B)/$(SONAME) $(LIB_OBJ) $(LDLIBS_CL)
	$(Q)ln -sf $(SONAME) $@

# The load-only library's objects when a part is left out, recompiled
# whenever the parts change (load-flags.txt, rewritten only then), as is
# the library itself.
$(B)/load-flags.txt: FORCE
	@mkdir -p $(B)
	@echo '$(LOAD_DEFS)' | cmp -s - $@ || echo '$(LOAD_DEFS)' >$@
FORCE:

$(B)/pic-load/%.o: %.c $(B)/load-flags.txt | $(PUB_H)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (load-only)")
	$(Q)$(CC) $(CLC_CPPFLAGS) $(LOAD_DEFS) $(call inc_of,$<) $(CPPFLAGS) -DCLCPACK_BUILDING $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden $(DEPFLAGS) -c -o $@ $<

$(B)/libclcpack_load.a: $(LOAD_OBJ) $(B)/load-flags.txt
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(LOAD_OBJ)

# The map less the functions of the parts left out (and the word global:
# of a node they leave empty, which ld refuses).
$(B)/clcpack_load.map: $(LOAD_MAP) $(B)/load-flags.txt
	$(Q)sed -e '' $(foreach n,$(LOAD_NAMES_OUT),-e '/^ *$(n);/d') $(LOAD_MAP) | \
		sed -e '/^ *global:$$/{N;s/^ *global:\n}/}/;}' >$@

$(B)/libclcpack_load.so: $(LOAD_OBJ) $(B)/clcpack_load.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(LOAD_SONAME) -Wl,--version-script=$(B)/clcpack_load.map -Wl,-z,defs \
		$(LDFLAGS) -o $(B)/$(LOAD_SONAME) $(LOAD_OBJ) $(LDLIBS_CL)
	$(Q)ln -sf $(LOAD_SONAME) $@

# The load-only library's lines (docs/BENCH.md, "The loader's size"): the
# sources this configuration builds it from and every header of the
# project they include; make loader-lines LOAD_MIN=1 counts the core.
loader-lines:
	$(Q)sh scripts/loader_lines.sh "$(CC)" "$(CLC_CPPFLAGS) $(LOAD_DEFS) $(ALL_INC) $(CPPFLAGS)" $(LOAD_SRC)

$(B)/libclcpack-preload.so: $(PRELOAD_OBJ) $(B)/libclcpack.a preload/exports.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libclcpack-preload.so -Wl,--version-script=preload/exports.map -Wl,-z,defs $(LDFLAGS) -o $@ \
		$(PRELOAD_OBJ) $(B)/libclcpack.a -ldl -lz -lpthread -lm $(if $(filter 1,$(LIBDEFLATE)),-ldeflate) \
		$(if $(filter 1,$(ZSTD)),-lzstd)

# The forwarding libOpenCL.so.1 (preload/shim/opencl_shim.c) that record and
# run put first on LD_LIBRARY_PATH: no code, DT_NEEDED on the interposer and
# on the real loader under a name clc-pack links at run time. The second is
# linked against a stub of that name, made here.
$(SHIM_STUB):
	@mkdir -p $(dir $@)
	$(Q)printf 'typedef int empty;\n' | $(CC) -shared -Wl,-soname,libclcpack-real-opencl.so.1 -o $@ -x c -
$(SHIM): preload/shim/opencl_shim.c preload/shim/opencl_shim.map $(B)/libclcpack-preload.so $(SHIM_STUB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,libOpenCL.so.1 -Wl,--version-script=preload/shim/opencl_shim.map \
		$(LDFLAGS) -o $@ preload/shim/opencl_shim.c -Wl,--no-as-needed \
		-L$(B) -l:libclcpack-preload.so -L$(dir $(SHIM_STUB)) -l:libclcpack-real-opencl.so.1

$(B)/libclc.a: $(CLC_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/clc-pack: $(B)/clc/main/main.o $(B)/libclc.a $(B)/libclcpack.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_CLC)

$(STUB_ICD): $(STUB_OBJ) $(B)/pic/loader/common/sha256.o tests/stubs/gpu_driver/exports.map
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,--version-script=tests/stubs/gpu_driver/exports.map -Wl,-z,defs $(LDFLAGS) -o $@ \
		$(STUB_OBJ) $(B)/pic/loader/common/sha256.o -lpthread

$(STUB_VENDORS): $(STUB_ICD)
	@mkdir -p $(dir $@)
	$(Q)echo "$(abspath $(STUB_ICD))" >$@

# The tests' helpers as an archive: a test links only the helpers it uses,
# so one that never opens an OpenCL platform has no such symbol, which is
# how scripts/sanitize.sh picks the programs valgrind runs.
$(B)/libtestcommon.a: $(TEST_COMMON_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

# $(B)/tests/test_X from test_X.c in any of TEST_DIRS; -Itests for the
# fuzz targets' headers (tests/fuzz/), which the replay tests include.
define test_rule
$(B)/tests/%: $(1)/%.c $(B)/libtestcommon.a $(B)/libclc.a $(B)/libclcpack.a
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$<")
	$$(Q)$$(CC) $$(CLC_CPPFLAGS) $$(ALL_INC) $$(CPPFLAGS) -Itests/common -Itests $$(CFLAGS) $$(WARN) $$(DEPFLAGS) -o $$@ $$(filter-out %.h,$$(wildcard $$^)) $$(LDLIBS_CLC)
endef
$(foreach d,$(TEST_DIRS),$(eval $(call test_rule,$(d))))
# A build made before the tests moved into unit/ and device/ names their old
# paths in its .d files: those paths need nothing (and the link line above
# takes only the files that exist).
$(addprefix tests/,$(notdir $(wildcard tests/unit/test_*.c tests/device/test_*.c))):

# What the interposer's tests load beside it (tests/stubs/): a stub OpenCL
# driver that calls back synchronously, and a tracer interposer.
TEST_SO := $(B)/tests/libclcpack_callback_driver.so $(B)/tests/libclcpack_tracer.so
$(B)/tests/libclcpack_callback_driver.so: tests/stubs/callback_driver.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -shared -fvisibility=hidden $(LDFLAGS) -o $@ $<
$(B)/tests/libclcpack_tracer.so: tests/stubs/tracer.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -shared $(LDFLAGS) -o $@ $< -lOpenCL -ldl
$(B)/tests/test_record_reentry $(B)/tests/test_record_stress: | $(TEST_SO)

# The interposer's key code, tested on its own.
$(B)/tests/test_rec_key: $(B)/pic/preload/rec_key.o
$(B)/tests/test_rec_key: CLC_CPPFLAGS += -Ipreload -Wl,-u,sb_put
# (Its objects come after the libraries on the link line: the test itself
# calls what they need of libclcpack.a, and -u takes the byte buffer
# (loader/common/strbuf.c) from it before them.)
$(B)/tests/test_miss_reason: $(B)/pic/preload/miss_reason.o $(B)/pic/preload/rec_key.o
$(B)/tests/test_miss_reason: CLC_CPPFLAGS += -Ipreload -Iformats -Wl,-u,sb_put

# pack and test set up the machine first (deps), then build: a sub-make,
# so that nothing compiles before the headers are there, even with -j.
# '+': under make -jN, clc-pack shares make's jobserver (docs/CLI.md).
PACK_DEVICE ?= default
pack: deps
	$(Q)$(MAKE) --no-print-directory all
	+$(Q)$(B)/clc-pack --device $(PACK_DEVICE)

# make test also sets up what the tests need (scripts/test_deps.sh: cmake,
# nginx, PyOpenCL, the public projects' kernels), as root on Debian; what
# cannot be had makes the tests that need it say "skipped", counted apart.
# It builds the benchmarks' programs too, so that a change that breaks
# `make bench` is seen here, where CI runs.
test: deps
	$(Q)sh scripts/test_deps.sh $(B)
	$(Q)$(MAKE) --no-print-directory all $(TEST_BIN) $(STUB_ICD) $(STUB_VENDORS) $(BENCH_BIN)
	$(Q)sh tests/run_tests.sh $(B)

# The driver-free tests (tests/unit/ and the scripts of
# tests/cli/driver_free.list): no OpenCL device, no root, no network, no
# package installed; two at a time, in well under a minute.
check:
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BIN)
	$(Q)sh tests/run_tests.sh -j 2 $(B) check

# The golden-output tests (tests/cli/golden/) written anew from what the
# tool prints now, then `git diff` of them: a change of a message is seen
# and committed, never taken silently (tests/README.md, "Golden output").
golden: all
	$(Q)sh tests/cli/golden/run.sh $(B) --refresh

# 64-bit Arm Linux (docs/PLATFORMS.md): the library, the tool and any
# ARM64_GOALS (default all) cross-built into $(B)-arm64 by Debian's
# aarch64-linux-gnu toolchain against arm64 libraries installed beside the
# host's (multiarch: scripts/test_deps.sh); tests/cli/cli_arm64.sh runs the
# driver-free tests from there under qemu-aarch64. A sub-make, so that the
# optional libraries (zstd, libdeflate, libcurl) are probed for arm64.
ARM64_CROSS ?= aarch64-linux-gnu-
ARM64_GOALS ?= all
.PHONY: arm64
arm64:
	$(Q)$(MAKE) --no-print-directory CC=$(ARM64_CROSS)gcc B=$(B)-arm64 $(ARM64_GOALS)

# The libraries last, users before what they use: a bench's own
# prerequisite libtestcommon.a (below) comes before libclc.a and libclcpack.a.
$(B)/bench/%: tests/bench/%.c $(BENCH_COMMON_OBJ) $(B)/libclc.a $(B)/libclcpack.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CLC_CPPFLAGS) $(ALL_INC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -o $@ $(filter-out %.h %.a,$^) $(filter %/libtestcommon.a,$^) $(B)/libclc.a $(B)/libclcpack.a $(LDLIBS_CLC)

# The OpenCV peer of the convolution comparison (scripts/conv_bench.sh), built
# only where OpenCV is installed (pkg-config opencv4).
CV_FLAGS := $(shell pkg-config --cflags --libs opencv4 2>/dev/null)
CXX      ?= c++
BENCH_PEER_BIN := $(if $(CV_FLAGS),$(B)/bench/cv_filter)
$(B)/bench/cv_filter: tests/bench/opencv/cv_filter.cpp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) -O2 -std=c++17 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -o $@ $< $(CV_FLAGS)
# The hardening bench crafts its packs with the tests' helpers.
$(B)/bench/hardening: $(B)/libtestcommon.a
# So does the writer's thread bench.
$(B)/bench/write_threads: $(B)/libtestcommon.a
# The first-launch bench makes a pack for another driver with them (and
# the writer they call comes after them on the command line).
$(B)/bench/first_launch_any: $(B)/libtestcommon.a
$(B)/bench/first_launch_any: LDLIBS_CL := $(B)/libclcpack.a $(LDLIBS_CL)
# And the cold-start bench pads packs with it.
$(B)/bench/pad_pack: $(B)/libtestcommon.a

# Start-up, build scaling, pack size and kernel speed on one device
# (BENCH_DEVICE=SPEC, default the default device); docs/BENCH.md.
bench: all $(BENCH_BIN) $(BENCH_PEER_BIN)
	$(Q)sh scripts/bench.sh $(B)

# libFuzzer over pack parsing (tests/fuzz/, docs/ROBUSTNESS.md): clang only;
# FUZZ_SECONDS of fuzzing from the corpus and the regression files.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
# One program per target: pack (fuzz_target.h) and those of targets.h.
FUZZ_TARGETS := pack open_file tuning best load writer
# The targets over the command-line side's parsers (tests/fuzz/NAME_target.h,
# corpus in tests/fuzz/corpus_NAME/).
FUZZ_TARGETS += expr define_value pack_args manifest source_fold worker_proto pocl_canon ptx_text
FUZZ_TARGETS += remote_record capture t1_spec
# Every program links clc/ and loader/, compiled once with the fuzzer's
# instrumentation into one archive.
FUZZ_SAN := -O1 -g -fno-sanitize-recover=all -fsanitize=address,undefined
$(B)/fuzz/obj/%.o: %.c | $(PUB_H)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(CLC_CPPFLAGS) $(call inc_of,$<) $(CPPFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WARN) $(DEPFLAGS) -c -o $@ $<

$(B)/fuzz/libclc_fuzz.a: $(CLC_SRC:%.c=$(B)/fuzz/obj/%.o) $(LIB_SRC:%.c=$(B)/fuzz/obj/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(B)/fuzz/libclc_fuzz.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $@")
	$(Q)$(FUZZ_CC) $(CLC_CPPFLAGS) $(ALL_INC) $(CPPFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) -o $@ $< \
		$(B)/fuzz/libclc_fuzz.a $(LDLIBS_CLC)

fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)
	$(Q)FUZZ_TARGETS="$(FUZZ_TARGETS)" sh scripts/fuzz.sh $(B) $(FUZZ_SECONDS)

# Installation: make install PREFIX=/usr DESTDIR=/tmp/stage (README.md).
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
CMAKEDIR     ?= $(LIBDIR)/cmake/clcpack
VERSION := $(shell awk '/^.define CLCPACK_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $$3; s = "."} END {print v}' loader/include/clcpack.h)

# The path from folder $(1) to $(2) (both absolute), for files that find
# each other wherever the installation is staged or moved.
SIZEOF_POINTER = $(shell $(CC) -dM -E -x c /dev/null | awk '/__SIZEOF_POINTER__/ {print $$3}')
relpath = $(shell realpath -m --relative-to='$(1)' '$(2)')

# Regenerated on every install: the paths depend on PREFIX and LIBDIR.
install: all
	$(Q)for pc in clcpack clcpack_load; do \
		sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
		-e 's|@LIBS_PRIVATE@|$(LIBS_PRIVATE)|g' \
		pkgconfig/$$pc.pc.in >$(B)/$$pc.pc || exit 1; done
	$(Q)sed -e 's|@CMAKE_TO_BINDIR@|$(call relpath,$(CMAKEDIR),$(BINDIR))|g' \
		-e 's|@CMAKE_TO_LIBDIR@|$(call relpath,$(CMAKEDIR),$(LIBDIR))|g' \
		-e 's|@CMAKE_TO_INCLUDEDIR@|$(call relpath,$(CMAKEDIR),$(INCLUDEDIR))|g' \
		-e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVERSION@|$(SONAME:libclcpack.so.%=%)|g' \
		-e 's|@LIBS_OPTIONAL_CMAKE@|$(if $(filter 1,$(LIBDEFLATE)),;deflate)$(if $(filter 1,$(ZSTD)),;zstd)|g' \
		-e 's|@LOADER_CODECS@|$(if $(filter 1,$(ZSTD)),zlib$(COMMA)zstd,zlib)|g' \
		cmake/clcpackConfig.cmake.in >$(B)/clcpackConfig.cmake
	$(Q)sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(firstword $(subst ., ,$(VERSION)))|g' \
		-e 's|@SIZEOF_VOID_P@|$(SIZEOF_POINTER)|g' \
		cmake/clcpackConfigVersion.cmake.in >$(B)/clcpackConfigVersion.cmake
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(CMAKEDIR)
	install -m 755 $(B)/clc-pack $(DESTDIR)$(BINDIR)/clc-pack
	install -m 644 $(B)/libclcpack.a $(DESTDIR)$(LIBDIR)/libclcpack.a
	install -m 644 $(B)/$(SONAME) $(DESTDIR)$(LIBDIR)/libclcpack.so.$(VERSION)
	ln -sf libclcpack.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libclcpack.so
	install -m 644 $(B)/libclcpack_load.a $(DESTDIR)$(LIBDIR)/libclcpack_load.a
	install -m 644 $(B)/$(LOAD_SONAME) $(DESTDIR)$(LIBDIR)/libclcpack_load.so.$(VERSION)
	ln -sf libclcpack_load.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(LOAD_SONAME)
	ln -sf $(LOAD_SONAME) $(DESTDIR)$(LIBDIR)/libclcpack_load.so
	install -m 755 $(B)/libclcpack-preload.so $(DESTDIR)$(LIBDIR)/libclcpack-preload.so
	install -d $(DESTDIR)$(LIBDIR)/clcpack-opencl
	install -m 755 $(SHIM) $(DESTDIR)$(LIBDIR)/clcpack-opencl/libOpenCL.so.1
	install -m 644 $(wildcard loader/include/*.h) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(B)/clcpack.pc $(B)/clcpack_load.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 man/clc-pack.1 $(DESTDIR)$(MANDIR)/man1/clc-pack.1
	install -m 644 man/clcpack.3 $(DESTDIR)$(MANDIR)/man3/clcpack.3
	install -m 644 completions/clc-pack $(DESTDIR)$(BASHCOMPDIR)/clc-pack
	install -m 644 $(B)/clcpackConfig.cmake $(B)/clcpackConfigVersion.cmake \
		cmake/clcpackPack.cmake $(DESTDIR)$(CMAKEDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/clc-pack $(DESTDIR)$(LIBDIR)/libclcpack.a \
		$(DESTDIR)$(LIBDIR)/libclcpack.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libclcpack.so $(DESTDIR)$(LIBDIR)/libclcpack_load.a \
		$(DESTDIR)$(LIBDIR)/libclcpack_load.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(LOAD_SONAME) \
		$(DESTDIR)$(LIBDIR)/libclcpack_load.so \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(wildcard loader/include/*.h))) \
		$(DESTDIR)$(LIBDIR)/libclcpack-preload.so $(DESTDIR)$(LIBDIR)/clcpack-opencl/libOpenCL.so.1 \
		$(DESTDIR)$(PKGCONFIGDIR)/clcpack.pc $(DESTDIR)$(PKGCONFIGDIR)/clcpack_load.pc \
		$(DESTDIR)$(MANDIR)/man1/clc-pack.1 \
		$(DESTDIR)$(MANDIR)/man3/clcpack.3 $(DESTDIR)$(BASHCOMPDIR)/clc-pack
	rm -f $(DESTDIR)$(CMAKEDIR)/clcpackConfig.cmake $(DESTDIR)$(CMAKEDIR)/clcpackConfigVersion.cmake \
		$(DESTDIR)$(CMAKEDIR)/clcpackPack.cmake

# The tests under sanitizers and valgrind (docs/ROBUSTNESS.md), each in its
# own build folder: ASan+UBSan over every test (the public kernels and the
# other test needs set up once, for the main build), TSan over the threaded one,
# valgrind over the tests that need no OpenCL driver.
ASAN_B ?= build-asan
TSAN_B ?= build-tsan
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
test-sanitize:
	$(Q)$(MAKE) --no-print-directory B=$(ASAN_B) CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
		all $(TEST_BIN:$(B)/%=$(ASAN_B)/%) $(ASAN_B)/tests/libclcstub.so
	$(Q)sh scripts/test_deps.sh $(B)
	$(Q)CLC_PUBLIC_KERNELS="$${CLC_PUBLIC_KERNELS:-$(abspath $(B))/public-kernels}" \
		CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" sh scripts/sanitize.sh asan $(ASAN_B)

test-tsan:
	$(Q)$(MAKE) --no-print-directory B=$(TSAN_B) CFLAGS="$(TSAN_FLAGS)" LDFLAGS="$(TSAN_FLAGS)" \
		$(TSAN_B)/tests/test_loader_pocl $(TSAN_B)/tests/test_record_threads $(TSAN_B)/tests/test_record_stress \
		$(TSAN_B)/tests/test_hardening $(TSAN_B)/tests/test_write_threads $(TSAN_B)/clc-pack $(TSAN_B)/libclcpack-preload.so \
		$(TSAN_B)/tests/test_read_on_demand $(TSAN_B)/tests/test_lookup $(TSAN_B)/tests/test_gpu_stub \
		$(TSAN_B)/tests/libclcstub.so
	$(Q)CFLAGS="$(TSAN_FLAGS)" LDFLAGS="$(TSAN_FLAGS)" sh scripts/sanitize.sh tsan $(TSAN_B)

test-valgrind: all $(TEST_BIN) $(STUB_ICD)
	$(Q)sh scripts/sanitize.sh valgrind $(B)

# The Windows library, cross-built with MinGW-w64 into build-win/
# (scripts/windows.mk; docs/PLATFORMS.md); ZSTD_DIR=<prefix> adds a user's zstd.
windows:
	$(Q)$(MAKE) --no-print-directory -f scripts/windows.mk windows
# Its installation for find_package(clcpack) in a cross build; PREFIX must
# be given (the default one is this host's).
windows-install:
	$(Q)$(MAKE) --no-print-directory -f scripts/windows.mk windows-install \
		PREFIX=$(if $(filter command line,$(origin PREFIX)),$(PREFIX))

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
