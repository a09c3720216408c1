// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - (stub; to be written)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "srpt.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver (srpt-dkms)");
MODULE_VERSION(SRPT_VERSION);
