// SPDX-License-Identifier: GPL-2.0
/*
 * srpt_selftest.c - in-kernel self-test of the ib_srpt port table.
 *
 * src/port.c and src/names.c are compiled into this module (no exports from
 * ib_srpt needed). The tests build fake srpt_device objects without an
 * ib_device and print KTAP on module load:
 *   KTAP version 1
 *   1..N
 *   ok 1 <name> / not ok 1 <name>
 *   # Totals: pass:P fail:F skip:0 total:N
 * Loading always succeeds; unload with rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define SRPT_SELFTEST

#include "port.c"
#include "names.c"

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>

/* KTAP lines go to the log without the module name prefix. */
#undef pr_fmt
#define pr_fmt(fmt) fmt

/* Devices freed by srpt_sdev_release(); compared by address only. */
static atomic_t st_freed_count = ATOMIC_INIT(0);
static struct srpt_device *st_last_freed;

static void srpt_selftest_sdev_freed(struct srpt_device *sdev)
{
	WRITE_ONCE(st_last_freed, sdev);
	/* order the pointer before the count that readers check first */
	smp_mb__before_atomic();
	atomic_inc(&st_freed_count);
}

#define ST_EXPECT(cond)							\
	do {								\
		if (!(cond)) {						\
			pr_info("    # %s:%d: expected %s\n", __func__,	\
				__LINE__, #cond);			\
			ok = false;					\
		}							\
	} while (0)

/* GID fe80::0200:5eff:feSS:00PP for device seed SS and port PP. */
static void st_gid(union ib_gid *gid, u8 seed, u8 port)
{
	static const u8 tmpl[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x00, 0x5e, 0xff, 0xfe, 0, 0, 0,
	};

	memcpy(gid->raw, tmpl, sizeof(tmpl));
	gid->raw[13] = seed;
	gid->raw[15] = port;
}

static void st_guid_name(char *buf, u8 seed, u8 port)
{
	union ib_gid gid;

	st_gid(&gid, seed, port);
	srpt_format_guid_name(buf, SRPT_GUID_NAME_SIZE, gid.raw);
}

static void st_gid_name(char *buf, u8 seed, u8 port)
{
	union ib_gid gid;

	st_gid(&gid, seed, port);
	srpt_format_gid_name(buf, SRPT_HEX128_NAME_SIZE, gid.raw);
}

/* A fake HCA with @port_cnt named ports, added to the table. */
static struct srpt_device *st_add_dev(u32 port_cnt, u8 seed)
{
	struct srpt_device *sdev;
	union ib_gid gid;
	u32 i;

	sdev = srpt_sdev_alloc(NULL, port_cnt);
	if (!sdev)
		return NULL;
	for (i = 0; i < port_cnt; i++) {
		st_gid(&gid, seed, i + 1);
		srpt_port_set_names(&sdev->port[i], &gid);
	}
	srpt_port_table_add(sdev);
	return sdev;
}

/* Remove and put @sdev. Return: whether this freed it. */
static bool st_del_dev(struct srpt_device *sdev)
{
	int before = atomic_read(&st_freed_count);

	srpt_port_table_del(sdev);
	srpt_sdev_put(sdev);
	return atomic_read(&st_freed_count) == before + 1 &&
	       READ_ONCE(st_last_freed) == sdev;
}

static bool st_alloc_defaults(void)
{
	struct srpt_device *sdev;
	bool ok = true;
	u32 i;

	sdev = srpt_sdev_alloc(NULL, 3);
	if (!sdev)
		return false;
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(sdev->port_cnt == 3);
	ST_EXPECT(!sdev->removed);
	for (i = 0; i < 3; i++) {
		struct srpt_port *sport = &sdev->port[i];

		ST_EXPECT(sport->sdev == sdev);
		ST_EXPECT(sport->port == i + 1);
		ST_EXPECT(sport->port_attrib.srp_max_rdma_size == 65536);
		ST_EXPECT(sport->port_attrib.srp_max_rsp_size == 256);
		ST_EXPECT(sport->port_attrib.srp_sq_size == 4096);
		ST_EXPECT(sport->port_attrib.srp_rq_size == 128);
		ST_EXPECT(!sport->port_attrib.use_srq);
		ST_EXPECT(list_empty(&sport->nexus_list));
		ST_EXPECT(atomic_read(&sport->ch_count) == 0);
		ST_EXPECT(!sport->guid_id && !sport->gid_id);
		ST_EXPECT(sport->guid_name[0] == '\0');
	}
	/* never added: the put alone frees it */
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_names_format(void)
{
	struct srpt_device *sdev;
	bool ok = true;

	sdev = st_add_dev(1, 0x01);
	if (!sdev)
		return false;
	ST_EXPECT(strcmp(sdev->port[0].guid_name, "0200:5eff:fe01:0001") == 0);
	ST_EXPECT(strcmp(sdev->port[0].gid_name,
			 "0xfe8000000000000002005efffe010001") == 0);
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_lookup_both_names(void)
{
	char guid[SRPT_GUID_NAME_SIZE], gid[SRPT_HEX128_NAME_SIZE];
	struct port_and_port_id r;
	struct srpt_device *sdev;
	bool ok = true;
	u32 p;

	sdev = st_add_dev(2, 0x02);
	if (!sdev)
		return false;
	for (p = 0; p < 2; p++) {
		struct srpt_port *sport = &sdev->port[p];

		st_guid_name(guid, 0x02, p + 1);
		st_gid_name(gid, 0x02, p + 1);

		r = srpt_lookup_port(guid);
		ST_EXPECT(r.sport == sport);
		ST_EXPECT(r.port_id == &sport->guid_id);
		ST_EXPECT(kref_read(&sdev->refcnt) == 2);
		if (r.sport)
			srpt_port_put_ref(r.sport);

		r = srpt_lookup_port(gid);
		ST_EXPECT(r.sport == sport);
		ST_EXPECT(r.port_id == &sport->gid_id);
		ST_EXPECT(kref_read(&sdev->refcnt) == 2);
		if (r.sport)
			srpt_port_put_ref(r.sport);
		ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	}
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_lookup_two_devices(void)
{
	char name[SRPT_GUID_NAME_SIZE];
	struct srpt_device *a, *b;
	struct port_and_port_id r;
	bool ok = true;

	a = st_add_dev(1, 0x03);
	b = st_add_dev(1, 0x04);
	if (!a || !b) {
		if (a)
			st_del_dev(a);
		if (b)
			st_del_dev(b);
		return false;
	}
	st_guid_name(name, 0x04, 1);
	r = srpt_lookup_port(name);
	ST_EXPECT(r.sport == &b->port[0]);
	ST_EXPECT(kref_read(&a->refcnt) == 1);
	ST_EXPECT(kref_read(&b->refcnt) == 2);
	if (r.sport)
		srpt_port_put_ref(r.sport);
	ST_EXPECT(st_del_dev(a));
	ST_EXPECT(st_del_dev(b));
	return ok;
}

static bool st_lookup_unknown_and_malformed(void)
{
	static const char * const bad[] = {
		"",
		"0200:5eff:fe05:0002",		/* no port 2 */
		"0200:5eff:fe05:000",
		"0200:5eff:fe05:00011",
		"0200:5EFF:FE05:0001",		/* case sensitive */
		"0XFE8000000000000002005EFFFE050001",
		"fe8000000000000002005efffe050001", /* no 0x */
		"0xfe8000000000000002005efffe050001 ",
		"200:5eff:fe05:1",
		"192.0.2.1",
		"0xfe8000000000000002005efffe0500010000000000000000000000000000000000",
	};
	char longname[200];
	struct port_and_port_id r;
	struct srpt_device *sdev;
	struct srpt_port_id *pid;
	bool ok = true;
	int i;

	sdev = st_add_dev(1, 0x05);
	if (!sdev)
		return false;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r = srpt_lookup_port(bad[i]);
		if (r.sport || r.port_id) {
			pr_info("    # lookup of \"%s\" matched\n", bad[i]);
			ok = false;
			if (r.sport)
				srpt_port_put_ref(r.sport);
		}
		pid = srpt_port_id_create(bad[i]);
		if (!IS_ERR(pid)) {
			pr_info("    # port_id_create(\"%s\") succeeded\n", bad[i]);
			ok = false;
			srpt_port_id_destroy(pid);
		} else {
			ST_EXPECT(PTR_ERR(pid) == -EINVAL);
		}
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	r = srpt_lookup_port(longname);
	ST_EXPECT(!r.sport && !r.port_id);
	pid = srpt_port_id_create(longname);
	ST_EXPECT(IS_ERR(pid) && PTR_ERR(pid) == -EINVAL);
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_refs_balanced(void)
{
	struct srpt_device *sdev;
	bool ok = true;
	int i;

	sdev = st_add_dev(2, 0x06);
	if (!sdev)
		return false;
	for (i = 0; i < 1000; i++)
		srpt_port_get_ref(&sdev->port[i & 1]);
	ST_EXPECT(kref_read(&sdev->refcnt) == 1001);
	for (i = 0; i < 1000; i++)
		srpt_port_put_ref(&sdev->port[i & 1]);
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(!srpt_port_is_removed(&sdev->port[0]));
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_port_id_create_destroy(void)
{
	char guid[SRPT_GUID_NAME_SIZE], gid[SRPT_HEX128_NAME_SIZE];
	struct srpt_port_id *a, *b;
	struct srpt_device *sdev;
	struct srpt_port *sport;
	bool ok = true;

	sdev = st_add_dev(1, 0x07);
	if (!sdev)
		return false;
	sport = &sdev->port[0];
	st_guid_name(guid, 0x07, 1);
	st_gid_name(gid, 0x07, 1);

	a = srpt_port_id_create(guid);
	ST_EXPECT(!IS_ERR(a));
	if (IS_ERR(a))
		goto out;
	/* the name actually used, not always the GID form (upstream bug) */
	ST_EXPECT(strcmp(a->name, guid) == 0);
	ST_EXPECT(a->sport == sport && a->wwn.priv == sport);
	ST_EXPECT(sport->guid_id == a && !sport->gid_id);
	ST_EXPECT(list_empty(&a->tpg_list));
	ST_EXPECT(kref_read(&sdev->refcnt) == 2);

	b = srpt_port_id_create(gid);
	ST_EXPECT(!IS_ERR(b));
	if (!IS_ERR(b)) {
		ST_EXPECT(strcmp(b->name, gid) == 0);
		ST_EXPECT(sport->gid_id == b && sport->guid_id == a);
		ST_EXPECT(kref_read(&sdev->refcnt) == 3);
		srpt_port_id_destroy(b);
		ST_EXPECT(!sport->gid_id && sport->guid_id == a);
	}
	ST_EXPECT(kref_read(&sdev->refcnt) == 2);
	srpt_port_id_destroy(a);
	ST_EXPECT(!sport->guid_id && !sport->gid_id);
out:
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_port_id_duplicate(void)
{
	char gid[SRPT_HEX128_NAME_SIZE];
	struct srpt_port_id *a, *b;
	struct srpt_device *sdev;
	bool ok = true;
	int i;

	sdev = st_add_dev(1, 0x08);
	if (!sdev)
		return false;
	st_gid_name(gid, 0x08, 1);
	a = srpt_port_id_create(gid);
	ST_EXPECT(!IS_ERR(a));
	if (!IS_ERR(a)) {
		for (i = 0; i < 10; i++) {
			b = srpt_port_id_create(gid);
			ST_EXPECT(IS_ERR(b) && PTR_ERR(b) == -EEXIST);
			if (!IS_ERR(b))
				srpt_port_id_destroy(b);
		}
		/* no reference leaked by the failed attempts */
		ST_EXPECT(kref_read(&sdev->refcnt) == 2);
		ST_EXPECT(sdev->port[0].gid_id == a);
		srpt_port_id_destroy(a);
	}
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_set_names_recomputes(void)
{
	char old_guid[SRPT_GUID_NAME_SIZE], new_guid[SRPT_GUID_NAME_SIZE];
	char old_gid[SRPT_HEX128_NAME_SIZE], new_gid[SRPT_HEX128_NAME_SIZE];
	struct srpt_port_id *a, *b;
	struct port_and_port_id r;
	struct srpt_device *sdev;
	struct srpt_port *sport;
	union ib_gid gid;
	bool ok = true;

	sdev = st_add_dev(1, 0x09);
	if (!sdev)
		return false;
	sport = &sdev->port[0];
	st_guid_name(old_guid, 0x09, 1);
	st_gid_name(old_gid, 0x09, 1);
	st_guid_name(new_guid, 0x0a, 1);
	st_gid_name(new_gid, 0x0a, 1);

	a = srpt_port_id_create(old_guid);
	ST_EXPECT(!IS_ERR(a));

	st_gid(&gid, 0x0a, 1);
	srpt_port_set_names(sport, &gid);
	ST_EXPECT(strcmp(sport->guid_name, new_guid) == 0);
	ST_EXPECT(strcmp(sport->gid_name, new_gid) == 0);

	r = srpt_lookup_port(old_guid);
	ST_EXPECT(!r.sport);
	r = srpt_lookup_port(old_gid);
	ST_EXPECT(!r.sport);
	r = srpt_lookup_port(new_gid);
	ST_EXPECT(r.sport == sport && r.port_id == &sport->gid_id);
	if (r.sport)
		srpt_port_put_ref(r.sport);

	if (!IS_ERR(a)) {
		/* the existing directory keeps its name and its slot */
		ST_EXPECT(strcmp(a->name, old_guid) == 0);
		ST_EXPECT(sport->guid_id == a);
		b = srpt_port_id_create(new_guid);
		ST_EXPECT(IS_ERR(b) && PTR_ERR(b) == -EEXIST);
		if (!IS_ERR(b))
			srpt_port_id_destroy(b);
		ST_EXPECT(kref_read(&sdev->refcnt) == 2);
		srpt_port_id_destroy(a);
	}
	b = srpt_port_id_create(new_guid);
	ST_EXPECT(!IS_ERR(b));
	if (!IS_ERR(b)) {
		ST_EXPECT(strcmp(b->name, new_guid) == 0);
		srpt_port_id_destroy(b);
	}
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

static bool st_removed_device(void)
{
	char guid[SRPT_GUID_NAME_SIZE], gid[SRPT_HEX128_NAME_SIZE];
	struct port_and_port_id r;
	struct srpt_device *sdev;
	struct srpt_port_id *a, *b;
	struct srpt_port *sport;
	int freed;
	bool ok = true;

	sdev = st_add_dev(1, 0x0b);
	if (!sdev)
		return false;
	sport = &sdev->port[0];
	st_guid_name(guid, 0x0b, 1);
	st_gid_name(gid, 0x0b, 1);
	a = srpt_port_id_create(guid);
	ST_EXPECT(!IS_ERR(a));

	srpt_port_table_del(sdev);
	ST_EXPECT(srpt_port_is_removed(sport));
	r = srpt_lookup_port(guid);
	ST_EXPECT(!r.sport);
	r = srpt_lookup_port(gid);
	ST_EXPECT(!r.sport);
	b = srpt_port_id_create(gid);
	ST_EXPECT(IS_ERR(b));
	if (!IS_ERR(b))
		srpt_port_id_destroy(b);

	/* the binding's reference goes; the directory keeps the memory */
	freed = atomic_read(&st_freed_count);
	srpt_sdev_put(sdev);
	if (IS_ERR(a)) {
		ST_EXPECT(atomic_read(&st_freed_count) == freed + 1);
		return false;
	}
	ST_EXPECT(atomic_read(&st_freed_count) == freed);
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(a->sport == sport && srpt_port_is_removed(a->sport));

	/* the last put, from the directory, frees the device */
	srpt_port_id_destroy(a);
	ST_EXPECT(atomic_read(&st_freed_count) == freed + 1);
	ST_EXPECT(READ_ONCE(st_last_freed) == sdev);
	return ok;
}

static bool st_zero_ports(void)
{
	struct port_and_port_id r;
	struct srpt_device *sdev;
	bool ok = true;

	sdev = st_add_dev(0, 0x0c);
	if (!sdev)
		return false;
	r = srpt_lookup_port("0200:5eff:fe0c:0001");
	ST_EXPECT(!r.sport);
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

/* Lookups and port_id create/destroy racing the removal of the device. */
struct st_race {
	char guid[SRPT_GUID_NAME_SIZE];
	char gid[SRPT_HEX128_NAME_SIZE];
	struct srpt_device *sdev;
	bool del_done;
	atomic_t hits;
	atomic_t late_hits;
	atomic_t bad_hits;
	atomic_t creates;
	atomic_t enodev;
	atomic_t bad_errors;
};

static int st_race_lookup_fn(void *arg)
{
	struct st_race *race = arg;
	struct port_and_port_id r;
	bool late;

	while (!kthread_should_stop()) {
		/* pairs with smp_store_release() after the removal */
		late = smp_load_acquire(&race->del_done);
		r = srpt_lookup_port(race->guid);
		if (r.sport) {
			atomic_inc(&race->hits);
			if (late)
				atomic_inc(&race->late_hits);
			if (r.sport != &race->sdev->port[0] ||
			    r.port_id != &r.sport->guid_id)
				atomic_inc(&race->bad_hits);
			srpt_port_put_ref(r.sport);
		}
		cond_resched();
	}
	return 0;
}

static int st_race_create_fn(void *arg)
{
	struct st_race *race = arg;
	struct srpt_port_id *pid;
	bool late;

	while (!kthread_should_stop()) {
		/* pairs with smp_store_release() after the removal */
		late = smp_load_acquire(&race->del_done);
		pid = srpt_port_id_create(race->gid);
		if (!IS_ERR(pid)) {
			atomic_inc(&race->creates);
			if (late)
				atomic_inc(&race->late_hits);
			srpt_port_id_destroy(pid);
		} else if (PTR_ERR(pid) == -ENODEV) {
			/* removed between the lookup and the attach */
			atomic_inc(&race->enodev);
		} else if (PTR_ERR(pid) != -EINVAL) {
			atomic_inc(&race->bad_errors);
		} else if (late) {
			/* avoid a pr_warn flood once the device is gone */
			msleep(20);
		}
		cond_resched();
	}
	return 0;
}

static bool st_lookup_races_removal(void)
{
	struct task_struct *t[3] = { };
	struct st_race *race;
	int i, freed;
	bool ok = true;

	race = kzalloc(sizeof(*race), GFP_KERNEL);
	if (!race)
		return false;
	race->sdev = st_add_dev(1, 0x0d);
	if (!race->sdev) {
		kfree(race);
		return false;
	}
	st_guid_name(race->guid, 0x0d, 1);
	st_gid_name(race->gid, 0x0d, 1);
	freed = atomic_read(&st_freed_count);

	t[0] = kthread_run(st_race_lookup_fn, race, "srpt_st_lookup0");
	t[1] = kthread_run(st_race_lookup_fn, race, "srpt_st_lookup1");
	t[2] = kthread_run(st_race_create_fn, race, "srpt_st_create");
	msleep(50);
	srpt_port_table_del(race->sdev);
	/* lookups that see this flag started after the removal */
	smp_store_release(&race->del_done, true);
	/* drop the binding's reference while lookups may still hold some */
	srpt_sdev_put(race->sdev);
	msleep(50);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (IS_ERR(t[i])) {
			ok = false;
			continue;
		}
		kthread_stop(t[i]);
	}
	pr_info("    # %d lookups, %d port_id creations before removal, %d -ENODEV\n",
		atomic_read(&race->hits), atomic_read(&race->creates),
		atomic_read(&race->enodev));
	ST_EXPECT(atomic_read(&race->hits) > 0);
	ST_EXPECT(atomic_read(&race->late_hits) == 0);
	ST_EXPECT(atomic_read(&race->bad_hits) == 0);
	ST_EXPECT(atomic_read(&race->bad_errors) == 0);
	/* every reference went: the device was freed exactly once */
	ST_EXPECT(atomic_read(&st_freed_count) == freed + 1);
	ST_EXPECT(READ_ONCE(st_last_freed) == race->sdev);
	kfree(race);
	return ok;
}

/* srpt_port_id_destroy() must wait while login code holds the port mutex. */
struct st_destroy {
	struct srpt_port_id *port_id;
	struct completion done;
};

static int st_destroy_fn(void *arg)
{
	struct st_destroy *d = arg;

	srpt_port_id_destroy(d->port_id);
	complete(&d->done);
	return 0;
}

static bool st_destroy_waits_for_port_mutex(void)
{
	char gid[SRPT_HEX128_NAME_SIZE];
	struct task_struct *task;
	struct srpt_device *sdev;
	struct srpt_port *sport;
	struct st_destroy d;
	bool ok = true;

	sdev = st_add_dev(1, 0x0e);
	if (!sdev)
		return false;
	sport = &sdev->port[0];
	st_gid_name(gid, 0x0e, 1);
	init_completion(&d.done);
	d.port_id = srpt_port_id_create(gid);
	ST_EXPECT(!IS_ERR(d.port_id));
	if (IS_ERR(d.port_id))
		goto out;

	/* what login code does: slot and TPG list under the port mutex */
	mutex_lock(&sport->mutex);
	task = kthread_run(st_destroy_fn, &d, "srpt_st_destroy");
	if (IS_ERR(task)) {
		mutex_unlock(&sport->mutex);
		srpt_port_id_destroy(d.port_id);
		ok = false;
		goto out;
	}
	msleep(50);
	ST_EXPECT(!completion_done(&d.done));
	ST_EXPECT(READ_ONCE(sport->gid_id) == d.port_id);
	mutex_lock(&d.port_id->mutex);
	ST_EXPECT(list_empty(&d.port_id->tpg_list));
	ST_EXPECT(strcmp(d.port_id->name, gid) == 0);
	mutex_unlock(&d.port_id->mutex);
	mutex_unlock(&sport->mutex);

	ST_EXPECT(wait_for_completion_timeout(&d.done, 10 * HZ) > 0);
	ST_EXPECT(!READ_ONCE(sport->gid_id));
out:
	ST_EXPECT(kref_read(&sdev->refcnt) == 1);
	ST_EXPECT(st_del_dev(sdev));
	return ok;
}

struct st_case {
	const char *name;
	bool (*fn)(void);
};

static const struct st_case st_cases[] = {
	{ "sdev_alloc_defaults", st_alloc_defaults },
	{ "set_names_format", st_names_format },
	{ "lookup_guid_and_gid_name", st_lookup_both_names },
	{ "lookup_two_devices", st_lookup_two_devices },
	{ "lookup_unknown_and_malformed", st_lookup_unknown_and_malformed },
	{ "port_refs_balanced", st_refs_balanced },
	{ "port_id_create_destroy", st_port_id_create_destroy },
	{ "port_id_duplicate_eexist_no_leak", st_port_id_duplicate },
	{ "set_names_recomputes", st_set_names_recomputes },
	{ "removed_device_last_put_frees", st_removed_device },
	{ "zero_ports", st_zero_ports },
	{ "lookup_races_removal", st_lookup_races_removal },
	{ "port_id_destroy_waits_for_port_mutex",
	  st_destroy_waits_for_port_mutex },
};

static int __init srpt_selftest_init(void)
{
	int i, pass = 0, fail = 0;
	bool ok;

	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(st_cases));
	for (i = 0; i < ARRAY_SIZE(st_cases); i++) {
		ok = st_cases[i].fn();
		if (ok)
			pass++;
		else
			fail++;
		pr_info("%s %d %s\n", ok ? "ok" : "not ok", i + 1,
			st_cases[i].name);
	}
	pr_info("# Totals: pass:%d fail:%d skip:0 total:%zu\n", pass, fail,
		ARRAY_SIZE(st_cases));
	/* every fake device must be gone and the table empty */
	spin_lock(&srpt_dev_lock);
	if (!list_empty(&srpt_dev_list))
		pr_info("# srpt_selftest: device table not empty\n");
	spin_unlock(&srpt_dev_lock);
	return 0;
}

static void __exit srpt_selftest_exit(void)
{
}

module_init(srpt_selftest_init);
module_exit(srpt_selftest_exit);

MODULE_DESCRIPTION("ib_srpt port table self-test");
MODULE_LICENSE("GPL");
