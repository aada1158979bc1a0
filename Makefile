# clc-pack — build, test, pack. See README.md.
#   make            the tool (build/clc-pack) and the library (build/libclcpack.{a,so})
#   make pack       a pack for the default device with the default widths and work-groups
#   make test       every test (prints "N passed, N failed")
#   V=1             full command lines

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
B       := build

CFLAGS   ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Werror
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -Iloader -Iclc
DEPFLAGS := -MMD -MP
LDLIBS_CL := -lOpenCL -lz -lpthread -lm

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC  := $(sort $(wildcard loader/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/pic/%.o)
CLC_SRC  := $(sort $(filter-out clc/main.c,$(wildcard clc/*.c)))
CLC_OBJ  := $(CLC_SRC:%.c=$(B)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TEST_COMMON := $(sort $(wildcard tests/common/*.c))
TEST_COMMON_OBJ := $(TEST_COMMON:%.c=$(B)/%.o)

SONAME := libclcpack.so.0

.PHONY: all deps pack test bench clean install uninstall
all: deps $(B)/clc-pack $(B)/libclcpack.a $(B)/libclcpack.so

# Installs missing Debian packages when root on a Debian-like system, else
# prints the command to run and stops.
deps:
	$(Q)sh scripts/deps.sh

$(B)/pic/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) -DCLCPACK_BUILDING $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden $(DEPFLAGS) -c -o $@ $<

$(B)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(B)/libclcpack.a: $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libclcpack.so: $(LIB_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) -o $(B)/$(SONAME) $^ $(LDLIBS_CL)
	$(Q)ln -sf $(SONAME) $@

$(B)/libclc.a: $(CLC_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/clc-pack: $(B)/clc/main.o $(B)/libclc.a $(B)/libclcpack.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_CL)

$(B)/tests/%: tests/%.c $(TEST_COMMON_OBJ) $(B)/libclc.a $(B)/libclcpack.a | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) $(WARN) $(DEPFLAGS) -o $@ $^ $(LDLIBS_CL)

PACK_DEVICE ?= default
pack: all
	$(Q)$(B)/clc-pack --device $(PACK_DEVICE)

test: all $(TEST_BIN)
	$(Q)sh tests/run_tests.sh $(B)

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
