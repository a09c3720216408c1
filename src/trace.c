// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - defines the tracepoints declared in include/srpt_trace.h: the
 * one file that includes it with CREATE_TRACE_POINTS (docs/design.md,
 * "Tracepoints"). The events are called from cm.c, channel.c, cmd.c and
 * rsp.c; nothing here runs on its own.
 */
#include "srpt.h"

#define CREATE_TRACE_POINTS
#include "srpt_trace.h"
