/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_compat.h - the only place that reads the HAVE_* results of the
 * compile probes (scripts/compat-probes.sh writes generated/srpt_probes.h
 * for the kernel being built against). Source files call the wrappers
 * below and contain no #if of their own.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include "srpt_probes.h"

#endif /* SRPT_COMPAT_H */
