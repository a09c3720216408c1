// SPDX-License-Identifier: GPL-2.0
/*
 * kprof.c - qemu TCG plugin (qemu 7.2 plugin API, version 1): counts the
 * guest instructions executed at each kernel address, per translation
 * block, and writes the counts to a file each time the guest runs the
 * marker program (scripts/prof/prof-mark.c), then starts again from zero.
 * File N holds what ran between mark N-1 and mark N. Used by
 * scripts/benchmark.sh --profile (see its header and scripts/prof/README).
 *
 * Arguments (-plugin kprof.so,out=DIR,mark=ADDR):
 *   out   directory for the files snap.N ("vaddr count" lines, hex vaddr)
 *   mark  start of the marker program's text page (hex); a translation
 *         block in that page triggers the dump
 *
 * Counting is an inline add of the block's instruction count to a counter
 * owned by the block's start address: it changes no guest instruction, so
 * icount timing is unaffected. A block that is left early (an exception,
 * an interrupt between its instructions) is counted whole; blocks start at
 * function entries and branch targets, so attribution to functions by the
 * start address is exact except where a block runs on past the end of a
 * function (tail fall-through, rare in kernel code). Only kernel addresses
 * (the upper half) are counted. qemu's -icount runs one TCG thread, so the
 * table needs no lock; without -icount counts from several vCPUs may race
 * (lost increments only, the table is never resized).
 *
 * The declarations below are the parts of qemu's plugin API this uses,
 * written from its documentation: no qemu header is needed to build it.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define KPROF_SLOTS	(1u << 21)	/* distinct block start addresses */
#define KPROF_KERNEL	0xffff800000000000ull

struct kprof_slot {
	uint64_t vaddr;		/* 0: free */
	uint64_t count;		/* instructions since the last dump */
};

static struct kprof_slot *table;
static unsigned int used;
static char outdir[4096];
static uint64_t mark_page;
static unsigned int nsnap;
static int full_warned;

static struct kprof_slot *kprof_slot(uint64_t vaddr)
{
	uint64_t h = vaddr * 0x9e3779b97f4a7c15ull;
	unsigned int i = (unsigned int)(h >> 43) & (KPROF_SLOTS - 1);

	for (;;) {
		if (table[i].vaddr == vaddr)
			return &table[i];
		if (!table[i].vaddr) {
			/* keep a quarter free: probing stays short */
			if (used >= KPROF_SLOTS / 4 * 3)
				return NULL;
			used++;
			table[i].vaddr = vaddr;
			return &table[i];
		}
		i = (i + 1) & (KPROF_SLOTS - 1);
	}
}

/* Write the counts since the last dump to DIR/snap.N and clear them. */
static void kprof_dump(void)
{
	char path[4200];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/snap.%u", outdir, ++nsnap);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "kprof: cannot write %s\n", path);
		return;
	}
	for (i = 0; i < KPROF_SLOTS; i++) {
		if (!table[i].count)
			continue;
		fprintf(f, "%" PRIx64 " %" PRIu64 "\n", table[i].vaddr,
			table[i].count);
		table[i].count = 0;
	}
	fclose(f);
}

static void kprof_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	kprof_dump();
}

static void kprof_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct kprof_slot *s;

	(void)id;
	if ((vaddr & ~0xfffull) == mark_page) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, kprof_mark,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
		return;
	}
	if (vaddr < KPROF_KERNEL)
		return;
	s = kprof_slot(vaddr);
	if (!s) {
		if (!full_warned++)
			fprintf(stderr, "kprof: table full, blocks not counted\n");
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &s->count,
						 qemu_plugin_tb_n_insns(tb));
}

static void kprof_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	kprof_dump();
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			snprintf(outdir, sizeof(outdir), "%s", argv[i] + 4);
		else if (!strncmp(argv[i], "mark=", 5))
			mark_page = strtoull(argv[i] + 5, NULL, 16) & ~0xfffull;
		else {
			fprintf(stderr, "kprof: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!outdir[0] || !mark_page) {
		fprintf(stderr, "kprof: needs out=DIR and mark=ADDR\n");
		return -1;
	}
	table = calloc(KPROF_SLOTS, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, kprof_trans);
	qemu_plugin_register_atexit_cb(id, kprof_exit, NULL);
	return 0;
}
