// SPDX-License-Identifier: GPL-2.0
/*
 * port.c - (stub; to be written)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "srpt.h"
