// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer sample: a per-connection idle timeout table, the way a driver or
 * protocol module would use hwtimer.
 *
 * Each connection embeds a struct hwtimer. Traffic on a connection pushes
 * its idle deadline out with hwtimer_modify(); when a connection stays idle
 * for idle_ms, its callback marks it closed. At load the module simulates
 * traffic, waits for the idle ones to expire and checks the outcome; at
 * unload it destroys its wheel, which hands back the connections that are
 * still open so they can be freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hwtimer.h>
#include <linux/module.h>
#include <linux/slab.h>

static unsigned int nconn = 256;
module_param(nconn, uint, 0444);
MODULE_PARM_DESC(nconn, "Connections to simulate (default 256)");

static unsigned int idle_ms = 50;
module_param(idle_ms, uint, 0444);
MODULE_PARM_DESC(idle_ms, "Idle timeout in ms (default 50)");

struct conn {
	struct hwtimer idle;
	unsigned int id;
	bool closed;
};

static struct hwtimer_wheel *conn_wheel;
static struct conn *conns;
static atomic_t nclosed = ATOMIC_INIT(0);

static void conn_idle_expired(struct hwtimer *t)
{
	struct conn *c = from_hwtimer(c, t, idle);

	WRITE_ONCE(c->closed, true);
	atomic_inc(&nclosed);
}

/* Traffic on @c: the idle timeout starts over. Returns 1 if it was pending. */
static int conn_touch(struct conn *c, u64 timeout_ns)
{
	int ret = hwtimer_modify(&c->idle, timeout_ns, HWTIMER_MODE_REL);

	if (ret < 0)
		pr_warn("conn %u: cannot re-arm its idle timer\n", c->id);
	return ret;
}

static void conn_handed_back(struct hwtimer *t, void *arg)
{
	unsigned int *open = arg;

	(*open)++;
}

static int __init sample_init(void)
{
	struct hwtimer_wheel_config cfg = {
		.name = "sample-conn",
		.tick_ns = NSEC_PER_MSEC,
		.slots = 256,
		.max_pending = nconn,
	};
	u64 idle = (u64)idle_ms * NSEC_PER_MSEC;
	unsigned int i, keep = 0;
	int waited;

	if (!nconn || nconn > 1000000 || !idle_ms)
		return -EINVAL;
	conn_wheel = hwtimer_wheel_create(&cfg);
	if (IS_ERR(conn_wheel))
		return PTR_ERR(conn_wheel);
	conns = kvcalloc(nconn, sizeof(*conns), GFP_KERNEL);
	if (!conns) {
		hwtimer_wheel_destroy(conn_wheel, NULL, NULL);
		return -ENOMEM;
	}

	for (i = 0; i < nconn; i++) {
		conns[i].id = i;
		hwtimer_setup(&conns[i].idle, conn_wheel, conn_idle_expired);
		conn_touch(&conns[i], idle);
	}
	/*
	 * Every fourth connection stays busy: an hour-long keepalive. One
	 * whose idle timeout ran first (this loop held up for idle_ms) has
	 * closed: it counts as idle.
	 */
	for (i = 0; i < nconn; i += 4)
		if (conn_touch(&conns[i], 3600ULL * NSEC_PER_SEC) == 1)
			keep++;

	for (waited = 0; atomic_read(&nclosed) < nconn - keep && waited < 100; waited++)
		msleep(idle_ms);
	pr_info("%u connections: %d closed idle, %u kept open\n",
		nconn, atomic_read(&nclosed), keep);
	if (atomic_read(&nclosed) != nconn - keep) {
		pr_err("expected %u idle connections to close\n", nconn - keep);
		hwtimer_wheel_destroy(conn_wheel, NULL, NULL);
		kvfree(conns);
		return -EIO;
	}
	return 0;
}

static void __exit sample_exit(void)
{
	unsigned int open = 0;

	hwtimer_wheel_destroy(conn_wheel, conn_handed_back, &open);
	pr_info("unloaded: %u open connections handed back\n", open);
	kvfree(conns);
}

module_init(sample_init);
module_exit(sample_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer sample: per-connection idle timeouts");
