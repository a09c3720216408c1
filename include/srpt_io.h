/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_io.h - small helpers of the per-command I/O path, shared by
 * ioctx.c, cmd.c and rsp.c as static inline functions so that splitting
 * the I/O path over three files adds no function call per command.
 *
 * The command state machine lives here: every plain write of
 * srpt_send_ioctx.state goes through srpt_set_cmd_state(), the one
 * compare-and-exchange through srpt_test_and_set_cmd_state()
 * (docs/design.md, "Command state machine").
 */
#ifndef SRPT_IO_H
#define SRPT_IO_H

#include "srpt.h"

/**
 * srpt_set_cmd_state() - set the state of a command.
 * @sio: send context of the command.
 * @new: new state.
 *
 * A command in state DONE stays there; only NEW leaves it, when the send
 * context is reset for its next command (srpt_get_send_ioctx()).
 *
 * Return: the previous state.
 */
static inline enum srpt_command_state
srpt_set_cmd_state(struct srpt_send_ioctx *sio, enum srpt_command_state new)
{
	enum srpt_command_state prev = READ_ONCE(sio->state);

	if (prev != SRPT_STATE_DONE || new == SRPT_STATE_NEW)
		WRITE_ONCE(sio->state, new);
	return prev;
}

/**
 * srpt_test_and_set_cmd_state() - change the state if it has a given value.
 * @sio: send context of the command.
 * @old: expected current state (not DONE).
 * @new: new state (not NEW).
 *
 * Return: true if the state was @old and is now @new.
 */
static inline bool srpt_test_and_set_cmd_state(struct srpt_send_ioctx *sio,
					       enum srpt_command_state old,
					       enum srpt_command_state new)
{
	WARN_ON_ONCE(old == SRPT_STATE_DONE);
	WARN_ON_ONCE(new == SRPT_STATE_NEW);
	return cmpxchg(&sio->state, old, new) == old;
}

/**
 * srpt_return_credit() - add one credit to the next response.
 * @ch: channel.
 *
 * For an IU that gets no response of its own (docs/design.md, "Every
 * credit comes back").
 */
static inline void srpt_return_credit(struct srpt_rdma_ch *ch)
{
	atomic_inc(&ch->req_lim_delta);
}

#endif /* SRPT_IO_H */
