# getcounter - build, check, asan, bench, fuzz, install.
#
# make              build ./getcounter
# make check        unit tests (cmocka), shell tests of the binary, a short fuzz run
# make asan         the unit, shell and screen tests under AddressSanitizer and UBSan
# make bench        cost per sample against the floor of reading the files
# make install      PREFIX=/usr/local DESTDIR=...
# make deps         install the Debian packages the build needs, if missing
# make run          deps, build, one sample of the default counters

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
BUILD   ?= build
CC      ?= cc
PKG_CONFIG ?= pkg-config
VERSION := 0.1.0

WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -Iinclude -DGETCOUNTER_VERSION='"$(VERSION)"' -MMD -MP
override LDLIBS += -lm -pthread -ldl

# libmicrohttpd for --serve, when installed (NO_MICROHTTPD=1 builds without it)
ifndef NO_MICROHTTPD
MHD_LIBS := $(shell $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null)
ifneq ($(MHD_LIBS),)
override CFLAGS += -DHAVE_MICROHTTPD $(shell $(PKG_CONFIG) --cflags libmicrohttpd)
# serve.c loads libmicrohttpd (and libcrypt, GnuTLS) when --serve starts
# (dynlib.h), so it is not linked; GnuTLS' header verifies --tls-client-ca
ifneq ($(shell $(PKG_CONFIG) --exists gnutls && echo yes),)
override CFLAGS += -DHAVE_GNUTLS $(shell $(PKG_CONFIG) --cflags gnutls)
endif
endif
endif

# ncursesw for --tui, when installed (NO_NCURSES=1 builds without it); its
# cflags go to the screen's files only (tui.c is the only one with curses)
ifndef NO_NCURSES
NCURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null)
ifneq ($(NCURSES_LIBS),)
NCURSES_CFLAGS := -DHAVE_NCURSESW $(shell $(PKG_CONFIG) --cflags ncursesw)
override LDLIBS += $(NCURSES_LIBS)
endif
endif

# libpcap for the Network Capture set, when its header is installed (NO_PCAP=1
# builds without it); loaded with dlopen when a capture runs (dynlib.h)
ifndef NO_PCAP
ifeq ($(shell $(PKG_CONFIG) --exists libpcap 2>/dev/null && echo yes),yes)
override CFLAGS += -DHAVE_PCAP
endif
endif

# eBPF for the Per Processor Network Activity Cycles counters: libbpf,
# clang (-target bpf), bpftool and the running kernel's BTF, all found at
# build time (NO_BPF=1 builds without them; the counters then say so).
BPF_CLANG   ?= clang
BPFTOOL     ?= $(shell command -v bpftool 2>/dev/null || command -v /usr/sbin/bpftool 2>/dev/null)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')
ifndef NO_BPF
BPF_LIBS := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null)
ifneq ($(and $(BPF_LIBS),$(BPFTOOL),$(wildcard $(VMLINUX_BTF)),$(shell command -v $(BPF_CLANG) 2>/dev/null)),)
HAVE_BPF := 1
override CFLAGS += -DHAVE_BPF $(shell $(PKG_CONFIG) --cflags libbpf) -I$(BUILD)/bpf
override LDLIBS += $(BPF_LIBS)
endif
endif

CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

SRC      := $(wildcard src/*.c src/provider/*.c src/output/*.c)
LIB_SRC  := $(filter-out src/main.c,$(SRC))
OBJ      := $(SRC:%.c=$(BUILD)/%.o)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/test_*.c)
TESTS    := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all check unit cli tui asan bench bench-build print-ldlibs fuzz-short install uninstall deps run clean format lint fuzz

all: getcounter

getcounter: $(BUILD)/getcounter
	cp $< $@

$(BUILD)/getcounter: $(OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/src/output/tui.o: src/output/tui.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(NCURSES_CFLAGS) -c -o $@ $<

# The BPF object, against a vmlinux.h of this kernel's BTF (never
# committed), and its skeleton, which netcycles.c includes.
ifdef HAVE_BPF
$(BUILD)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/netcycles.bpf.o: src/bpf/netcycles.bpf.c include/netcycles_abi.h $(BUILD)/bpf/vmlinux.h
	$(BPF_CLANG) -O2 -g -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BUILD)/bpf -Iinclude \
		$(shell $(PKG_CONFIG) --cflags libbpf) -c -o $@ $<

# gen object keeps the BTF CO-RE needs and drops the DWARF (700 KB -> 65 KB)
$(BUILD)/bpf/netcycles.skel.h: $(BUILD)/bpf/netcycles.bpf.o
	$(BPFTOOL) gen object $(BUILD)/bpf/netcycles.o $<
	$(BPFTOOL) gen skeleton $(BUILD)/bpf/netcycles.o name netcycles_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/src/provider/netcycles.o: $(BUILD)/bpf/netcycles.skel.h
endif

# tests/unit/series.c: the fixture-series helper the provider tests share
$(BUILD)/tests/series.o: tests/unit/series.c tests/unit/series.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) -Itests/unit -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) $(BUILD)/tests/series.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/tests/series.o $(LIB_OBJ) \
		$(CMOCKA_LIBS) $(LDLIBS)

check: unit cli tui bench-build fuzz-short

# A short run of the log reader's fuzz target (issue 5); skipped, saying
# so, without clang. make fuzz runs every target for longer.
fuzz-short:
	FUZZ_SECONDS=10 FUZZ_TARGETS=fuzz_gclog GETCOUNTER_VERSION=$(VERSION) sh tests/fuzz/run.sh

# The benchmark harness must keep building (it links the library objects).
# the libraries the objects link with, for bench/run run by hand
print-ldlibs:
	@echo $(LDLIBS)

bench-build: $(BUILD)/getcounter $(LIB_OBJ)
	@# the whole script parsed: --build-only stops before most of it
	sh -n bench/run
	BUILD=$(BUILD) CC="$(CC)" LIB_OBJ="$(LIB_OBJ)" BENCH_LDFLAGS="$(LDFLAGS)" BENCH_LIBS="$(LDLIBS)" sh bench/run --build-only

unit: $(TESTS)
	@set -e; for t in $(TESTS); do echo "== $$t"; (cd tests/unit && ../../$$t); done

cli: $(BUILD)/getcounter
	GETCOUNTER=$(CURDIR)/$(BUILD)/getcounter sh tests/cli/run.sh

# the --tui screen driven in tmux (tests/tui/run.sh; skips without tmux)
tui: $(BUILD)/getcounter
	GETCOUNTER=$(CURDIR)/$(BUILD)/getcounter sh tests/tui/run.sh

# The tests of the code itself; not bench-build and fuzz-short, whose
# harness builds and fuzz targets (built by clang with their own
# sanitizers) make check has already run.
asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" LDFLAGS="-fsanitize=address,undefined" unit cli tui

# BENCH_FLAGS: options of bench/run, e.g. BENCH_FLAGS=--quick
BENCH_FLAGS ?=
bench: $(BUILD)/getcounter $(LIB_OBJ)
	BUILD=$(BUILD) CC="$(CC)" LIB_OBJ="$(LIB_OBJ)" BENCH_LDFLAGS="$(LDFLAGS)" BENCH_LIBS="$(LDLIBS)" sh bench/run $(BENCH_FLAGS)

fuzz:
	GETCOUNTER_VERSION=$(VERSION) sh tests/fuzz/run.sh

# where zsh and fish look for completions shipped with a package
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
SAMPLEDIR   ?= $(PREFIX)/share/getcounter/samples

install: $(BUILD)/getcounter
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BUILD)/getcounter $(DESTDIR)$(BINDIR)/getcounter
	install -m 644 man/getcounter.1 $(DESTDIR)$(MANDIR)/man1/getcounter.1
	install -m 644 completions/getcounter.bash $(DESTDIR)$(BASHCOMPDIR)/getcounter
	install -m 644 completions/_getcounter $(DESTDIR)$(ZSHCOMPDIR)/_getcounter
	install -m 644 completions/getcounter.fish $(DESTDIR)$(FISHCOMPDIR)/getcounter.fish
	install -d $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(SAMPLEDIR)
	install -m 644 man/gclog.5 $(DESTDIR)$(MANDIR)/man5/gclog.5
	install -m 644 samples/*.txt samples/*.gcl $(DESTDIR)$(SAMPLEDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/getcounter $(DESTDIR)$(MANDIR)/man1/getcounter.1 \
	      $(DESTDIR)$(BASHCOMPDIR)/getcounter $(DESTDIR)$(ZSHCOMPDIR)/_getcounter \
	      $(DESTDIR)$(FISHCOMPDIR)/getcounter.fish $(DESTDIR)$(MANDIR)/man5/gclog.5
	for f in samples/*.txt samples/*.gcl; do rm -f "$(DESTDIR)$(SAMPLEDIR)/$${f#samples/}"; done
	rmdir $(DESTDIR)$(SAMPLEDIR) $(DESTDIR)$(dir $(SAMPLEDIR:/=)) 2>/dev/null || true
	@# Into a DESTDIR (a staging tree), also the directories install made there,
	@# once empty, up to DESTDIR itself; on a live system the standard
	@# directories (bin, share/man/man1, ...) stay, as they are shared.
	@if [ -n "$(DESTDIR)" ]; then \
		for d in $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man5 $(BASHCOMPDIR) $(ZSHCOMPDIR) \
			$(FISHCOMPDIR) $(SAMPLEDIR); do \
			p="$(DESTDIR)$$d"; \
			while [ "$$p" != "$(DESTDIR)" ] && [ "$$p" != / ] && rmdir "$$p" 2>/dev/null; do \
				p=$$(dirname "$$p"); \
			done; \
		done; \
	fi

DEB_PACKAGES := build-essential pkg-config libcmocka-dev iproute2 util-linux strace python3

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && $$sudo apt-get install -y -qq $$missing; \
	fi

run: deps
	$(MAKE) getcounter
	./getcounter

format:
	clang-format -i include/*.h src/*.c src/*/*.c tests/unit/*.c

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr -Iinclude --std=c11 -i src/bpf src

clean:
	rm -rf build build-asan getcounter

# the headers each object and each unit test was built from (a test binary and
# series.o are rebuilt when a header they include changes)
-include $(OBJ:.o=.d) $(LIB_OBJ:.o=.d) $(BUILD)/tests/series.d $(TESTS:=.d)
