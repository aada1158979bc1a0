# The Windows library, cross-built with MinGW-w64 on Linux: `make windows`
# (docs/PLATFORMS.md). Everything lands in $(WB) (default build-win/):
#   clcpack.dll        exports exactly the clcpack_* functions of loader/clcpack.map
#   libclcpack.dll.a   its import library (MinGW, clang)
#   clcpack.def        the same exports, for MSVC's `lib /def:clcpack.def /machine:x64`
#   libclcpack.a       the static library (link it with -lOpenCL and what
#                      `make -f scripts/windows.mk windows-print-libs` says)
#   include/           clcpack.h, clcpack_inspect.h, clcpack_write.h
#   libOpenCL.dll.a    an import library for OpenCL.dll, made from the
#                      Khronos headers' cl* names (no driver SDK needed)
#   clcpack-codecs.txt the codecs the library reads, "zlib" or "zlib,zstd",
#                      for `clc-pack embed --loader-codecs "$(cat ...)"`
# The DLL carries zlib and the MinGW thread library inside it: it needs
# OpenCL.dll and the system's DLLs only.
#
# zstd: Debian has no zstd for MinGW, so by default the Windows library is
# built without it and reads zlib packs only (clc-pack --codec zlib); a
# user's zstd (vcpkg, MSYS2, or scripts/windows_zstd.sh from zstd's sources)
# is one switch, ZSTD_DIR=<prefix> (its include/ and lib/libzstd.a), tested
# by tests/cli/cli_windows_zstd.sh.

WB        ?= build-win
WIN_CC    ?= x86_64-w64-mingw32-gcc
WIN_AR    ?= x86_64-w64-mingw32-ar
DLLTOOL   ?= x86_64-w64-mingw32-dlltool
CL_HEADER ?= /usr/include/CL/cl.h
ZSTD_DIR  ?=

WIN_SRC  := $(sort $(filter-out %/platform_posix.c,$(wildcard loader/*/*.c)))
WIN_OBJ  := $(WIN_SRC:%.c=$(WB)/obj/%.o)
# The Khronos headers are the same for every system: the host's, alone in
# a folder of their own (-I/usr/include would bring Linux's headers).
KHRONOS  := $(WB)/khronos
WIN_INC  := -Iloader/include -Iloader/read -Iloader/load -Iloader/write -Iloader/common -I$(KHRONOS)
WIN_DEFS := -DCL_TARGET_OPENCL_VERSION=120 -D_WIN32_WINNT=0x0601 -D__USE_MINGW_ANSI_STDIO=1
WIN_LIBS := -lz
WIN_CODECS := zlib
ifneq ($(ZSTD_DIR),)
WIN_CODECS := zlib,zstd
WIN_DEFS += -DCLCPK_HAVE_ZSTD
WIN_INC  += -I$(ZSTD_DIR)/include
WIN_LIBS := -L$(ZSTD_DIR)/lib -lzstd $(WIN_LIBS)
endif
WIN_CFLAGS ?= -O2
WIN_WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
ifeq ($(WERROR),1)
WIN_WARN += -Werror
endif
WIN_HDRS := $(addprefix $(WB)/include/,$(notdir $(wildcard loader/include/*.h)))

.PHONY: windows windows-print-libs windows-codecs windows-install windows-no-prefix
windows: $(WB)/clcpack.dll $(WB)/libclcpack.a $(WB)/clcpack.def $(WB)/libOpenCL.dll.a $(WIN_HDRS) windows-codecs

# Which packs the library reads, said at every build (a zstd pack shipped
# with a zlib-only library fails only at the end user's first start) and
# kept for the build steps that embed or check a pack. Rewritten only when
# it changes.
windows-codecs: $(WB)/clcpack.dll
	@echo "$(WIN_CODECS)" | cmp -s - $(WB)/clcpack-codecs.txt || echo "$(WIN_CODECS)" >$(WB)/clcpack-codecs.txt
	@if [ "$(WIN_CODECS)" = zlib ]; then \
	    echo "  windows: clcpack.dll reads zlib packs only (no ZSTD_DIR): make packs with clc-pack --codec zlib; embed with --loader-codecs zlib ($(WB)/clcpack-codecs.txt)"; \
	else echo "  windows: clcpack.dll reads zlib and zstd packs ($(WB)/clcpack-codecs.txt)"; fi

# What a program linking $(WB)/libclcpack.a needs besides it and OpenCL
# (-lOpenCL, or $(WB)/libOpenCL.dll.a).
windows-print-libs:
	@echo $(WIN_LIBS) -lbcrypt -lpthread

$(KHRONOS)/CL: $(CL_HEADER)
	@mkdir -p $(KHRONOS)
	@ln -sfn $(dir $(abspath $(CL_HEADER))) $@

# The compile line as a file that changes when it does (ZSTD_DIR above
# all): every object depends on it, so a build-win/ switched to or from
# ZSTD_DIR recompiles its objects instead of relinking ones built without
# (or with) zstd under a codecs file that says otherwise.
WIN_FLAGS_TEXT := $(WIN_CC) $(WIN_DEFS) $(WIN_INC) $(WIN_CFLAGS) $(WIN_WARN)
$(WB)/flags.txt: FORCE
	@mkdir -p $(WB)
	@echo '$(WIN_FLAGS_TEXT)' | cmp -s - $@ || echo '$(WIN_FLAGS_TEXT)' >$@
FORCE:

$(WB)/obj/%.o: %.c $(WB)/flags.txt | $(KHRONOS)/CL
	@mkdir -p $(dir $@)
	@echo "  WINCC   $<"
	@$(WIN_CC) $(WIN_DEFS) $(WIN_INC) $(WIN_CFLAGS) $(WIN_WARN) -MMD -MP -c -o $@ $<

$(WB)/include/%.h: loader/include/%.h
	@mkdir -p $(dir $@)
	@cp $< $@

# The exports, from the one list the Linux build versions them by.
$(WB)/clcpack.def: loader/clcpack.map
	@mkdir -p $(dir $@)
	@{ echo "LIBRARY clcpack.dll"; echo "EXPORTS"; \
	   sed -n 's/^[[:space:]]*\(clcpack_[a-z0-9_]*\);.*/    \1/p' $<; } >$@

# OpenCL.dll's import library: every cl* function the Khronos header declares.
$(WB)/OpenCL.def: $(CL_HEADER)
	@mkdir -p $(dir $@)
	@{ echo "LIBRARY OpenCL.dll"; echo "EXPORTS"; \
	   sed -n 's/^\(cl[A-Z][A-Za-z0-9_]*\)(.*/    \1/p' $< | sort -u; } >$@
$(WB)/libOpenCL.dll.a: $(WB)/OpenCL.def
	@echo "  DLLTOOL $@"
	@$(DLLTOOL) -d $< -D OpenCL.dll -l $@

$(WB)/libclcpack.a: $(WIN_OBJ)
	@echo "  AR      $@"
	@rm -f $@ && $(WIN_AR) rcs $@ $^

# -static: zlib and winpthread go inside the DLL, so it ships alone.
$(WB)/clcpack.dll: $(WIN_OBJ) $(WB)/clcpack.def $(WB)/libOpenCL.dll.a
	@echo "  LD      $@"
	@$(WIN_CC) -shared -static -static-libgcc -o $@ $(WIN_OBJ) $(WB)/clcpack.def \
		-Wl,--out-implib,$(WB)/libclcpack.dll.a $(WB)/libOpenCL.dll.a $(WIN_LIBS) -lbcrypt -lpthread

# An installation a MinGW cross build finds with find_package(clcpack)
# (docs/PLATFORMS.md): bin/clcpack.dll, lib/ (import, static and OpenCL
# import libraries, clcpack-codecs.txt), include/ (with the Khronos headers
# in include/CL/: Debian's MinGW has none), lib/cmake/clcpack/ from the
# same templates as `make install`, CLCPACK_LOADER_CODECS set to what the
# DLL reads. No clc-pack in it: cross builds name the build host's
# (CLCPACK_CLC_PACK).
WIN_VERSION = $(shell awk '/^.define CLCPACK_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $$3; s = "."} END {print v}' loader/include/clcpack.h)
windows-install: $(if $(PREFIX),windows,windows-no-prefix)
	@install -d $(PREFIX)/bin $(PREFIX)/lib/cmake/clcpack $(PREFIX)/include/CL
	@install -m 644 $(WB)/clcpack.dll $(PREFIX)/bin/
	@install -m 644 $(WB)/libclcpack.dll.a $(WB)/libclcpack.a $(WB)/libOpenCL.dll.a $(WB)/clcpack.def \
		$(WB)/clcpack-codecs.txt $(PREFIX)/lib/
	@install -m 644 $(WIN_HDRS) $(PREFIX)/include/
	@install -m 644 $(dir $(CL_HEADER))*.h $(PREFIX)/include/CL/
	@sed -e 's|@CMAKE_TO_BINDIR@|../../../bin|g' -e 's|@CMAKE_TO_LIBDIR@|../..|g' \
		-e 's|@CMAKE_TO_INCLUDEDIR@|../../../include|g' -e 's|@VERSION@|$(WIN_VERSION)|g' \
		-e 's|@SOVERSION@||g' -e 's|@LIBS_OPTIONAL_CMAKE@|$(if $(ZSTD_DIR),;zstd);bcrypt|g' \
		-e 's|@LOADER_CODECS@|$(WIN_CODECS)|g' \
		cmake/clcpackConfig.cmake.in >$(PREFIX)/lib/cmake/clcpack/clcpackConfig.cmake
	@sed -e 's|@VERSION@|$(WIN_VERSION)|g' -e 's|@VERSION_MAJOR@|$(firstword $(subst ., ,$(WIN_VERSION)))|g' \
		-e 's|@SIZEOF_VOID_P@|8|g' cmake/clcpackConfigVersion.cmake.in >$(PREFIX)/lib/cmake/clcpack/clcpackConfigVersion.cmake
	@install -m 644 cmake/clcpackPack.cmake $(PREFIX)/lib/cmake/clcpack/
	@echo "  windows: installed into $(PREFIX)"
windows-no-prefix:
	@echo "windows-install: say where, PREFIX=/path (nothing built)" >&2; exit 2

-include $(shell find $(WB)/obj -name '*.d' 2>/dev/null)
