// SPDX-License-Identifier: GPL-2.0
/*
 * login.c - (stub; to be written)
 */
