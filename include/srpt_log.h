/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_log.h - log macros that print the identity of the object a message
 * is about (docs/design.md, "Log messages").
 *
 * Every message of the driver starts with "ib_srpt: " (pr_fmt) followed by
 * one of
 *   device:   "<ibdev>: "                 e.g. "ib_srpt: rxe0: ..."
 *   port:     "<ibdev>/<port>: "          e.g. "ib_srpt: rxe0/1: ..."
 *   channel:  "<ibdev>/<port> <session>: "
 *             e.g. "ib_srpt: rxe0/1 192.0.2.1: ..."
 * where <ibdev> is dev_name() of the RDMA device, <port> its port number
 * and <session> the channel's session (initiator) name, "(logging in)"
 * while the channel is created, before the login is checked against the
 * ACLs. Messages about no single object (module load, module parameters,
 * the RDMA/CM listener) have no prefix; configfs messages name the
 * configfs directory or attribute they are about.
 *
 * Rate limits: the _ratelimited variants use the kernel's per call site
 * limit (10 messages per 5 s). srpt_login_info() (port identity) is for
 * the messages of every login request (received, rejected): its limit per
 * call site is SRPT_LOG_LOGIN_BURST messages per 5 s, so that a scripted
 * sequence of a few dozen logins is logged completely while a login flood
 * is not.
 *
 * The RDMA core's ibdev_*() helpers would print "<driver> <ibdev>: "
 * without our module prefix and without the port; these macros keep every
 * message greppable by "ib_srpt: ".
 */
#ifndef SRPT_LOG_H
#define SRPT_LOG_H

#include <linux/printk.h>
#include <linux/ratelimit.h>

enum {
	/* login messages per call site and 5 s (srpt_login_info()) */
	SRPT_LOG_LOGIN_BURST	= 50,
};

/* @pr with a rate limit of its own: @burst messages per 5 s. */
#define srpt_printk_burst(burst, pr, fmt, ...)				\
do {									\
	static DEFINE_RATELIMIT_STATE(_srpt_rs,				\
				      DEFAULT_RATELIMIT_INTERVAL,	\
				      burst);				\
	if (__ratelimit(&_srpt_rs))					\
		pr(fmt, ##__VA_ARGS__);					\
} while (0)

#define srpt_sdev_name(sdev)	dev_name(&(sdev)->device->dev)

/* device: "<ibdev>: " */
#define srpt_dev_printk(pr, sdev, fmt, ...)				\
	pr("%s: " fmt, srpt_sdev_name(sdev), ##__VA_ARGS__)
#define srpt_dev_err(sdev, fmt, ...)					\
	srpt_dev_printk(pr_err, sdev, fmt, ##__VA_ARGS__)
#define srpt_dev_warn(sdev, fmt, ...)					\
	srpt_dev_printk(pr_warn, sdev, fmt, ##__VA_ARGS__)
#define srpt_dev_info(sdev, fmt, ...)					\
	srpt_dev_printk(pr_info, sdev, fmt, ##__VA_ARGS__)
#define srpt_dev_dbg(sdev, fmt, ...)					\
	srpt_dev_printk(pr_debug, sdev, fmt, ##__VA_ARGS__)
#define srpt_dev_err_ratelimited(sdev, fmt, ...)			\
	srpt_dev_printk(pr_err_ratelimited, sdev, fmt, ##__VA_ARGS__)
#define srpt_dev_warn_ratelimited(sdev, fmt, ...)			\
	srpt_dev_printk(pr_warn_ratelimited, sdev, fmt, ##__VA_ARGS__)

/* port: "<ibdev>/<port>: " */
#define srpt_port_printk(pr, sport, fmt, ...)				\
do {									\
	const struct srpt_port *_srpt_sp = (sport);			\
									\
	pr("%s/%u: " fmt, srpt_sdev_name(_srpt_sp->sdev),		\
	   _srpt_sp->port, ##__VA_ARGS__);				\
} while (0)
#define srpt_port_err(sport, fmt, ...)					\
	srpt_port_printk(pr_err, sport, fmt, ##__VA_ARGS__)
#define srpt_port_warn(sport, fmt, ...)					\
	srpt_port_printk(pr_warn, sport, fmt, ##__VA_ARGS__)
#define srpt_port_info(sport, fmt, ...)					\
	srpt_port_printk(pr_info, sport, fmt, ##__VA_ARGS__)
#define srpt_port_dbg(sport, fmt, ...)					\
	srpt_port_printk(pr_debug, sport, fmt, ##__VA_ARGS__)
#define srpt_port_warn_ratelimited(sport, fmt, ...)			\
	srpt_port_printk(pr_warn_ratelimited, sport, fmt, ##__VA_ARGS__)
#define srpt_port_info_ratelimited(sport, fmt, ...)			\
	srpt_port_printk(pr_info_ratelimited, sport, fmt, ##__VA_ARGS__)
#define srpt_pr_login_info(fmt, ...)					\
	srpt_printk_burst(SRPT_LOG_LOGIN_BURST, pr_info, fmt, ##__VA_ARGS__)
#define srpt_login_info(sport, fmt, ...)				\
	srpt_port_printk(srpt_pr_login_info, sport, fmt, ##__VA_ARGS__)

/* channel: "<ibdev>/<port> <session>: " */
#define srpt_ch_printk(pr, ch, fmt, ...)				\
do {									\
	const struct srpt_rdma_ch *_srpt_ch = (ch);			\
									\
	pr("%s/%u %s: " fmt, srpt_sdev_name(_srpt_ch->sport->sdev),	\
	   _srpt_ch->sport->port, _srpt_ch->sess_name, ##__VA_ARGS__);	\
} while (0)
#define srpt_ch_err(ch, fmt, ...)					\
	srpt_ch_printk(pr_err, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_warn(ch, fmt, ...)					\
	srpt_ch_printk(pr_warn, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_info(ch, fmt, ...)					\
	srpt_ch_printk(pr_info, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_dbg(ch, fmt, ...)					\
	srpt_ch_printk(pr_debug, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_err_ratelimited(ch, fmt, ...)				\
	srpt_ch_printk(pr_err_ratelimited, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_warn_ratelimited(ch, fmt, ...)				\
	srpt_ch_printk(pr_warn_ratelimited, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_info_ratelimited(ch, fmt, ...)				\
	srpt_ch_printk(pr_info_ratelimited, ch, fmt, ##__VA_ARGS__)

#endif /* SRPT_LOG_H */
