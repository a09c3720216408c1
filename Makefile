# SPDX-License-Identifier: GPL-2.0
# Top-level Makefile of srpt-dkms. The kernel build rules are in src/Kbuild;
# this file only wraps them (dkms appends KERNELRELEASE=..., which is harmless
# here because nothing below depends on it).
#
#   make [KVER=<release>] [KDIR=<headers>]   build src/ib_srpt.ko
#   make install                             install into updates/
#   make check                               run the whole test suite
#   make clean

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
SRC := $(CURDIR)/src

.PHONY: all module probes install check clean

all: module

probes:
	@scripts/compat-probes.sh "$(KDIR)" "$(SRC)/generated/srpt_probes.h"

module: probes
	$(MAKE) -C "$(KDIR)" M="$(SRC)" modules

install: module
	$(MAKE) -C "$(KDIR)" M="$(SRC)" INSTALL_MOD_DIR=updates modules_install

check:
	@scripts/check.sh

clean:
	-$(MAKE) -C "$(KDIR)" M="$(SRC)" clean 2>/dev/null
	rm -rf "$(SRC)/generated"
