# SPDX-License-Identifier: GPL-2.0
# Top-level Makefile of srpt-dkms. The kernel build rules are in src/Kbuild;
# this file only wraps them. dkms appends KERNELRELEASE=<kver> to its make
# command line; nothing here depends on it.
#
#   make [KVER=<release>] [KDIR=<build tree>]  build src/ib_srpt.ko (default:
#                                  the running kernel); W=1 C=2 etc. pass on
#   make install                   install into updates/: through DKMS when
#                                  dkms is installed, else modules_install
#                                  INSTALL_MOD_DIR=updates + depmod
#   make install-dkms              copy to /usr/src/<name>-<version>, dkms
#                                  add/build/install (refused when a
#                                  package owns that directory)
#   make install-kbuild            modules_install into updates/ + depmod
#   make uninstall                 undo install-dkms and install-kbuild
#                                  (scripts/uninstall.sh)
#   make check                     run the whole test suite (scripts/check.sh)
#   make matrix                    build matrix (scripts/matrix.sh)
#   make lint                      checkpatch --strict + kernel-doc +
#                                  references + known-kernel-bug filter +
#                                  sh -n and shellcheck on the shell
#                                  scripts (scripts/lint.sh)
#   make man9                      section 9 pages of every documented
#                                  function into build/man9/ (developers;
#                                  needs a kernel's scripts/kernel-doc)
#   make man9-interface            refresh man/*.9, the pages of the port
#                                  table API that the packages ship
#   make clean
#
# MLNX_OFED / DOCA-OFED: when /usr/src/ofa_kernel/<arch>/<kver> or
# /usr/src/ofa_kernel/default exists, the module is built against its
# headers (searched before the kernel's) and its Module.symvers. Override
# the tree with OFED_DIR=<dir>, or disable with OFED=no (OFED_ROOT changes
# the directory searched, for tests).

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
ARCH_NAME ?= $(shell uname -m)
OFED_ROOT ?= /usr/src/ofa_kernel
SRC := $(CURDIR)/src
# name and version from dkms.conf (scripts/version.sh reads them)
PACKAGE_NAME := $(shell sh scripts/version.sh --name)
PACKAGE_VERSION := $(shell sh scripts/version.sh)

# ---- OFED detection ----
ifneq ($(OFED),no)
ifeq ($(OFED_DIR),)
OFED_DIR := $(firstword $(wildcard $(OFED_ROOT)/$(ARCH_NAME)/$(KVER)/include \
				   $(OFED_ROOT)/default/include))
OFED_DIR := $(patsubst %/include,%,$(OFED_DIR))
endif
endif
ifneq ($(OFED),no)
ifneq ($(OFED_DIR),)
ifeq ($(wildcard $(OFED_DIR)/include),)
$(error OFED_DIR=$(OFED_DIR) has no include/ directory)
endif
# src/Kbuild puts $(SRPT_OFED_DIR)/include in front of the kernel's headers.
OFED_ARGS := SRPT_OFED_DIR=$(OFED_DIR)
ifneq ($(wildcard $(OFED_DIR)/Module.symvers),)
OFED_ARGS += KBUILD_EXTRA_SYMBOLS=$(OFED_DIR)/Module.symvers
endif
endif
endif

KMAKE = $(MAKE) -C "$(KDIR)" M="$(SRC)" $(OFED_ARGS)

.PHONY: all module probes kdir-check install install-dkms install-kbuild \
	uninstall check matrix lint man9 man9-interface clean

all: module

kdir-check:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "error: no kernel build tree at $(KDIR)" >&2; \
		echo "error: install the headers for kernel $(KVER) (Debian:" \
		     "apt-get install linux-headers-$(KVER)), or pass" \
		     "KVER=<release> or KDIR=<build tree>" >&2; \
		exit 1; \
	fi

probes: kdir-check
	@SRPT_OFED_DIR="$(if $(OFED_ARGS),$(OFED_DIR))" \
		scripts/compat-probes.sh "$(KDIR)" "$(SRC)/generated/srpt_probes.h"
ifneq ($(OFED_ARGS),)
	@echo "  OFED    building against $(OFED_DIR)"
endif

module: probes
	+$(KMAKE) modules

install:
	@if command -v dkms >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory install-dkms; \
	else \
		$(MAKE) --no-print-directory install-kbuild; \
	fi

# dkms add/build/install of this tree (version from dkms.conf). An earlier
# registration of the same version is removed first so that the current
# sources are the ones built; but when an installed package (.deb or .rpm)
# owns /usr/src/<name>-<version>, nothing is touched (scripts/pkg-owner.sh).
SRC_DEST := /usr/src/$(PACKAGE_NAME)-$(PACKAGE_VERSION)

install-dkms: kdir-check
	@scripts/pkg-owner.sh "make install-dkms" "$(SRC_DEST)"
	-dkms remove "$(PACKAGE_NAME)/$(PACKAGE_VERSION)" --all
	rm -rf "$(SRC_DEST)"
	scripts/install-dkms-src.sh "$(SRC_DEST)"
	dkms add "$(PACKAGE_NAME)/$(PACKAGE_VERSION)"
	dkms build "$(PACKAGE_NAME)/$(PACKAGE_VERSION)" -k "$(KVER)"
	dkms install "$(PACKAGE_NAME)/$(PACKAGE_VERSION)" -k "$(KVER)" --force

install-kbuild: module
	+$(KMAKE) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b "$(INSTALL_MOD_PATH)") "$(KVER)"

# Undo install-dkms (this version) and install-kbuild (every kernel's
# updates/ib_srpt.ko* built from this project); refused when a package owns
# the sources. See scripts/uninstall.sh.
uninstall:
	@scripts/uninstall.sh "$(PACKAGE_NAME)" "$(PACKAGE_VERSION)" "$(INSTALL_MOD_PATH)"

check:
	@scripts/check.sh

matrix:
	@scripts/matrix.sh

lint:
	@scripts/lint.sh

man9:
	scripts/gen-man9.sh build/man9

man9-interface:
	scripts/gen-man9.sh --interface man

clean:
	+@if [ -f "$(KDIR)/Makefile" ]; then $(KMAKE) clean; fi
	rm -rf "$(SRC)/generated"
	cd "$(SRC)" && rm -f *.o *.ko *.mod *.mod.c .*.cmd modules.order \
		Module.symvers
