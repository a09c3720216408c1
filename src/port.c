// SPDX-License-Identifier: GPL-2.0
/*
 * port.c - the port table: the list of HCAs (srpt_device), the lookup of a
 * port by its GUID or GID form name, the device reference count and the
 * configfs port name directories (srpt_port_id) attached to each port.
 *
 * Locking and lifetime (docs/design.md, "References and lifetimes" and
 * "Port names and port directories"):
 *  - srpt_dev_lock (spinlock, innermost) protects srpt_dev_list, every
 *    srpt_device.removed flag and the guid_name/gid_name strings of every
 *    port. Nothing under it sleeps; it is not taken from hard IRQ context.
 *  - The guid_id/gid_id slots of a port are written under both
 *    srpt_port.mutex and srpt_dev_lock and may be read under either. A
 *    port_id found in a slot under srpt_port.mutex stays allocated until
 *    that mutex is released (srpt_port_id_destroy() needs it), so login
 *    code walks its TPG list (port_id->mutex, nested inside srpt_port.mutex)
 *    safely.
 *  - srpt_device.refcnt: one reference for the ib_client binding (taken by
 *    srpt_sdev_alloc(), dropped by srpt_remove_one() with srpt_sdev_put())
 *    plus one per port reference (srpt_lookup_port(),
 *    srpt_port_get_ref(), srpt_port_id_create()). The last put frees the
 *    device with kfree(); until then the memory of the device and of its
 *    ports stays valid, even after the ib_device is gone.
 *  - srpt_port_table_del() marks the device removed and unlinks it under
 *    srpt_dev_lock; lookups that start afterwards no longer find its ports.
 *    Holders of a port reference must check srpt_port_is_removed() before
 *    touching verbs objects of the device.
 *
 * This file knows nothing about InfiniBand beyond the types: device.c
 * queries GID 0 and passes it to srpt_port_set_names().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_names.h"

#ifdef SRPT_SELFTEST
/* tests/selftest/ defines this to observe the final free */
static void srpt_selftest_sdev_freed(struct srpt_device *sdev);
#else
static inline void srpt_selftest_sdev_freed(struct srpt_device *sdev)
{
}
#endif

/* HCAs added by srpt_add_one() and not yet removed; srpt_dev_lock. */
static LIST_HEAD(srpt_dev_list);
static DEFINE_SPINLOCK(srpt_dev_lock);

/**
 * srpt_sdev_alloc() - allocate and initialize an HCA and its ports.
 * @device: the RDMA device.
 * @port_cnt: number of physical ports (rdma_end_port() for a 1-based
 *	      device); may be 0.
 *
 * Initializes the reference count (one reference, owned by the ib_client
 * binding), @sdev_mutex, and for every port: @sdev, the 1-based @port
 * number, @mutex, @nexus_list, @ch_count, @ch_wq and the default TPG
 * attributes (srp_max_rdma_size 65536, srp_max_rsp_size 256,
 * srp_sq_size 4096, srp_rq_size 128, use_srq false). The names are empty
 * until srpt_port_set_names(). The caller (device.c) initializes @work and
 * everything that needs the verbs API.
 *
 * Context: process context, may sleep.
 * Return: the new device, or NULL if memory is short.
 */
struct srpt_device *srpt_sdev_alloc(struct ib_device *device, u32 port_cnt)
{
	struct srpt_device *sdev;
	struct srpt_port *sport;
	u32 i;

	sdev = srpt_dbg_alloc("sdev", kzalloc(struct_size(sdev, port, port_cnt),
					      GFP_KERNEL));
	if (!sdev)
		return NULL;

	kref_init(&sdev->refcnt);
	sdev->device = device;
	mutex_init(&sdev->sdev_mutex);
	INIT_LIST_HEAD(&sdev->list);
	sdev->port_cnt = port_cnt;

	for (i = 0; i < port_cnt; i++) {
		sport = &sdev->port[i];
		sport->sdev = sdev;
		sport->port = i + 1;
		mutex_init(&sport->mutex);
		INIT_LIST_HEAD(&sport->nexus_list);
		spin_lock_init(&sport->stats_lock);
		atomic_set(&sport->ch_count, 0);
		init_waitqueue_head(&sport->ch_wq);
		sport->port_attrib.srp_max_rdma_size = SRPT_DEF_MAX_RDMA_SIZE;
		sport->port_attrib.srp_max_rsp_size = SRPT_DEF_MAX_RSP_SIZE;
		sport->port_attrib.srp_sq_size = SRPT_DEF_SQ_SIZE;
		sport->port_attrib.srp_rq_size = SRPT_DEF_RQ_SIZE;
		sport->port_attrib.use_srq = false;
	}
	return sdev;
}

/* kref release: the last reference to @kref's device is gone. */
static void srpt_sdev_release(struct kref *kref)
{
	struct srpt_device *sdev = container_of(kref, struct srpt_device,
						refcnt);
	u32 i;

	/* srpt_port_table_del() must have run if the device was added */
	WARN_ON_ONCE(!list_empty(&sdev->list));
	for (i = 0; i < sdev->port_cnt; i++) {
		WARN_ON_ONCE(sdev->port[i].guid_id || sdev->port[i].gid_id);
		mutex_destroy(&sdev->port[i].mutex);
	}
	mutex_destroy(&sdev->sdev_mutex);
	srpt_selftest_sdev_freed(sdev);
	kfree(sdev);
}

/**
 * srpt_sdev_put() - drop a reference to an HCA.
 * @sdev: the device.
 *
 * Frees @sdev with kfree() when this was the last reference.
 *
 * Context: any context that may call kfree(); must not hold srpt_dev_lock.
 */
void srpt_sdev_put(struct srpt_device *sdev)
{
	kref_put(&sdev->refcnt, srpt_sdev_release);
}

/**
 * srpt_port_table_add() - make the ports of an HCA visible to lookups.
 * @sdev: a device from srpt_sdev_alloc(); not yet in the table.
 *
 * Call it once the names of the ports are set (srpt_port_set_names()).
 *
 * Context: any context but hard IRQ; takes srpt_dev_lock.
 */
void srpt_port_table_add(struct srpt_device *sdev)
{
	spin_lock(&srpt_dev_lock);
	if (!WARN_ON_ONCE(!list_empty(&sdev->list)))
		list_add_tail(&sdev->list, &srpt_dev_list);
	spin_unlock(&srpt_dev_lock);
}

/**
 * srpt_port_table_del() - remove an HCA from the table.
 * @sdev: the device.
 *
 * Marks @sdev removed and unlinks it, both under srpt_dev_lock: lookups and
 * srpt_port_id_create() that start afterwards do not find its ports, and
 * srpt_port_is_removed() returns true for them. References held elsewhere
 * (configfs directories, channels) stay valid. Calling it again, or for a
 * device that was never added, only sets the flag.
 *
 * Context: any context but hard IRQ; takes srpt_dev_lock.
 */
void srpt_port_table_del(struct srpt_device *sdev)
{
	spin_lock(&srpt_dev_lock);
	WRITE_ONCE(sdev->removed, true);
	list_del_init(&sdev->list);
	spin_unlock(&srpt_dev_lock);
}

/**
 * srpt_port_table_exit() - check at module exit that the table is empty.
 *
 * ib_unregister_client() has removed every HCA (srpt_remove_one() calls
 * srpt_port_table_del()), so a device still linked here would be found by
 * lookups after the module is gone.
 */
void srpt_port_table_exit(void)
{
	spin_lock(&srpt_dev_lock);
	WARN_ON_ONCE(!list_empty(&srpt_dev_list));
	spin_unlock(&srpt_dev_lock);
}

/**
 * srpt_sdev_lookup() - find the HCA of an RDMA device, with a reference.
 * @device: the RDMA device a CM event arrived on.
 *
 * Used by the CM handlers instead of the ib_client data, which carries no
 * reference: srpt_remove_one() may be running on another CPU. The rule
 * that makes logins safe against removal: a login handler holds this
 * reference from its first look at the device until it returns, and
 * srpt_port_table_del() (the first thing srpt_remove_one() does after
 * stopping the listeners and events) unlinks the device under
 * srpt_dev_lock, so a handler either got its reference before that or finds
 * nothing. A handler that got one before either sees its port disabled
 * (srpt_release_sport() disables every port before it waits) or has
 * counted its channel in srpt_port.ch_count and is waited for; the
 * reference keeps the srpt_device memory valid in both cases.
 *
 * Context: any context but hard IRQ; takes srpt_dev_lock.
 * Return: the device with a reference the caller drops with
 * srpt_sdev_put(), or NULL if @device is not (or no longer) in the table.
 */
struct srpt_device *srpt_sdev_lookup(const struct ib_device *device)
{
	struct srpt_device *sdev;

	spin_lock(&srpt_dev_lock);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (sdev->device == device) {
			kref_get(&sdev->refcnt);
			spin_unlock(&srpt_dev_lock);
			return sdev;
		}
	}
	spin_unlock(&srpt_dev_lock);
	return NULL;
}

/*
 * Find the port named @name and its slot. Caller holds srpt_dev_lock.
 * Empty names (not yet set) never match.
 */
static struct port_and_port_id __srpt_lookup_port(const char *name)
{
	struct port_and_port_id result = { };
	struct srpt_device *sdev;
	struct srpt_port *sport;
	u32 i;

	lockdep_assert_held(&srpt_dev_lock);
	if (!name[0])
		return result;

	list_for_each_entry(sdev, &srpt_dev_list, list) {
		for (i = 0; i < sdev->port_cnt; i++) {
			sport = &sdev->port[i];
			if (strcmp(sport->guid_name, name) == 0) {
				result.sport = sport;
				result.port_id = &sport->guid_id;
				return result;
			}
			if (strcmp(sport->gid_name, name) == 0) {
				result.sport = sport;
				result.port_id = &sport->gid_id;
				return result;
			}
		}
	}
	return result;
}

/**
 * srpt_lookup_port() - find a port by its GUID or GID form name.
 * @name: the name; compared exactly (strcmp) with the GUID form name of
 *	  each port first, then with its GID form name.
 *
 * Return: on a match, the port and a pointer to the matching slot
 * (&sport->guid_id or &sport->gid_id), with a port reference held that the
 * caller drops with srpt_port_put_ref(). Slots are written only by
 * srpt_port_id_create() and srpt_port_id_destroy(), under srpt_port.mutex
 * and srpt_dev_lock; read them holding either. Without a match
 * {NULL, NULL} and no reference.
 *
 * Context: any context but hard IRQ; takes srpt_dev_lock.
 */
struct port_and_port_id srpt_lookup_port(const char *name)
{
	struct port_and_port_id result;

	spin_lock(&srpt_dev_lock);
	result = __srpt_lookup_port(name);
	if (result.sport)
		kref_get(&result.sport->sdev->refcnt);
	spin_unlock(&srpt_dev_lock);
	return result;
}

/**
 * srpt_port_get_ref() - take another reference on a port.
 * @sport: a port the caller already holds a reference on (directly or
 *	   through a configfs directory or channel that holds one).
 *
 * The reference is on the HCA (&sport->sdev->refcnt): it keeps the memory
 * of the device and all of its ports, not the ib_device.
 *
 * Context: any context.
 */
void srpt_port_get_ref(struct srpt_port *sport)
{
	kref_get(&sport->sdev->refcnt);
}

/**
 * srpt_port_put_ref() - drop a port reference.
 * @sport: the port.
 *
 * The device is freed when this was the last reference; @sport must not be
 * used afterwards.
 *
 * Context: as srpt_sdev_put().
 */
void srpt_port_put_ref(struct srpt_port *sport)
{
	srpt_sdev_put(sport->sdev);
}

/**
 * srpt_port_is_removed() - whether the HCA of a port has been removed.
 * @sport: a port the caller holds a reference on.
 *
 * Configfs operations on such a port must fail with -ENODEV: its verbs
 * objects (PD, SRQ, ...) are gone.
 *
 * Return: true once srpt_port_table_del() ran for the port's device.
 * Context: any context.
 */
bool srpt_port_is_removed(const struct srpt_port *sport)
{
	return READ_ONCE(sport->sdev->removed);
}

/**
 * srpt_port_set_names() - recompute the GUID and GID form names of a port.
 * @sport: the port.
 * @gid: GID index 0 of the port.
 *
 * Called by device.c whenever GID 0 is (re)queried. Both names are written
 * under srpt_dev_lock, so lookups see either the old or the new pair.
 * Existing configfs directories keep the name they were created with and
 * stay attached to their slot; a directory for a new name of an occupied
 * slot cannot be created (-EEXIST) until the old one is removed. @sport->gid
 * is not touched.
 *
 * Context: any context but hard IRQ; takes srpt_dev_lock.
 */
void srpt_port_set_names(struct srpt_port *sport, const union ib_gid *gid)
{
	char guid_name[SRPT_GUID_NAME_SIZE];
	char gid_name[SRPT_HEX128_NAME_SIZE];

	BUILD_BUG_ON(sizeof(sport->gid_name) < SRPT_HEX128_NAME_SIZE);
	srpt_format_guid_name(guid_name, sizeof(guid_name), gid->raw);
	srpt_format_gid_name(gid_name, sizeof(gid_name), gid->raw);

	spin_lock(&srpt_dev_lock);
	strscpy(sport->guid_name, guid_name, sizeof(sport->guid_name));
	strscpy(sport->gid_name, gid_name, sizeof(sport->gid_name));
	spin_unlock(&srpt_dev_lock);
}

/**
 * srpt_port_id_create() - create the object of a configfs port directory.
 * @name: the directory name (GUID or GID form of a port).
 *
 * Looks @name up and attaches a new srpt_port_id to the matching slot of
 * the port (under srpt_port.mutex and srpt_dev_lock). The port_id holds a
 * port reference until srpt_port_id_destroy(). Its @name is @name itself
 * (the name that matched), its @wwn.priv and @sport point at the port.
 *
 * Context: process context, may sleep; takes srpt_port.mutex.
 * Return: the new port_id, or ERR_PTR(-EINVAL) if no port has that name,
 * ERR_PTR(-ENODEV) if the port's device has been removed, ERR_PTR(-EEXIST)
 * if the slot already has a directory (e.g. one created under a name the
 * port had before a GID change), ERR_PTR(-ENOMEM). No reference is held
 * after a failure.
 */
struct srpt_port_id *srpt_port_id_create(const char *name)
{
	struct srpt_port_id *port_id;
	struct port_and_port_id found;
	struct srpt_port *sport;
	int ret = 0;

	found = srpt_lookup_port(name);
	sport = found.sport;
	if (!sport) {
		pr_warn("no RDMA port named %.*s\n", SRPT_NAME_LEN, name);
		return ERR_PTR(-EINVAL);
	}

	port_id = srpt_dbg_alloc("port_id", kzalloc(sizeof(*port_id), GFP_KERNEL));
	if (!port_id) {
		srpt_port_put_ref(sport);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&port_id->mutex);
	INIT_LIST_HEAD(&port_id->tpg_list);
	/* a match implies strlen(name) < sizeof(sport->guid_name) */
	strscpy(port_id->name, name, sizeof(port_id->name));
	port_id->sport = sport;
	port_id->wwn.priv = sport;

	mutex_lock(&sport->mutex);
	spin_lock(&srpt_dev_lock);
	if (sport->sdev->removed)
		ret = -ENODEV;
	else if (*found.port_id)
		ret = -EEXIST;
	else
		WRITE_ONCE(*found.port_id, port_id);
	spin_unlock(&srpt_dev_lock);
	mutex_unlock(&sport->mutex);

	if (ret) {
		if (ret == -EEXIST)
			pr_warn("port %s already has a directory\n", name);
		mutex_destroy(&port_id->mutex);
		kfree(port_id);
		srpt_port_put_ref(sport);
		return ERR_PTR(ret);
	}
	return port_id;
}

/**
 * srpt_port_id_destroy() - destroy the object of a configfs port directory.
 * @port_id: from srpt_port_id_create(); its TPG list must be empty.
 *
 * Detaches @port_id from its slot under srpt_port.mutex and srpt_dev_lock,
 * drops its port reference (which may free a removed device) and frees it.
 * Code that reads a slot while holding srpt_port.mutex may therefore use
 * the port_id it found until it releases srpt_port.mutex.
 *
 * Context: process context, may sleep; takes srpt_port.mutex.
 */
void srpt_port_id_destroy(struct srpt_port_id *port_id)
{
	struct srpt_port *sport = port_id->sport;

	WARN_ON_ONCE(!list_empty(&port_id->tpg_list));

	mutex_lock(&sport->mutex);
	spin_lock(&srpt_dev_lock);
	if (sport->guid_id == port_id)
		WRITE_ONCE(sport->guid_id, NULL);
	else if (sport->gid_id == port_id)
		WRITE_ONCE(sport->gid_id, NULL);
	else
		WARN_ON_ONCE(1);
	spin_unlock(&srpt_dev_lock);
	mutex_unlock(&sport->mutex);

	srpt_port_put_ref(sport);
	mutex_destroy(&port_id->mutex);
	kfree(port_id);
}
