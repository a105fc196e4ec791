// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: generators: open, close, dup, fork, INFO, raw ioctls on any file.
 */

#include "hl-fuzz.h"

/* ---- file ops ---- */

void op_open(struct worker *w)
{
	int dev = rnd(&w->r, ndev), fd;
	enum fkind kind;
	char path[64];

	if (chance(&w->r, 55)) {
		kind = F_COMPUTE;
		snprintf(path, sizeof(path), "/dev/hl%d", dev);
	} else if (chance(&w->r, 60)) {
		kind = F_CONTROL;
		snprintf(path, sizeof(path), "/dev/hl_controlD%d", dev);
	} else {
		kind = F_IMPORTER;
		snprintf(path, sizeof(path), "/dev/hl_importer");
	}
	st_lock();
	if (ps->nfds >= MAX_FDS - 4) {
		st_unlock();
		return;
	}
	st_unlock();
	fd = open(path, O_RDWR | (chance(&w->r, 50) ? O_CLOEXEC : 0));
	note(w, fd < 0 ? -errno : fd, "open %s (%s)", path, fkind_name[kind]);
	atomic_fetch_add(&sh->opens, 1);
	if (fd < 0)
		return;
	add_fd(fd, dev, kind, 0, 0);
	/* learn the device once */
	if (kind != F_IMPORTER) {
		struct devinfo di = { 0 };
		struct hl_info_args a = {
			.return_pointer = (uintptr_t)&di.hw,
			.return_size = sizeof(di.hw), .op = HL_INFO_HW_IP_INFO,
		};

		st_lock();
		if (ps->dev[dev].valid) {
			st_unlock();
			return;
		}
		st_unlock();
		if (ioctl(fd, HL_IOCTL_INFO, &a))
			return;
		a.return_pointer = (uintptr_t)&di.ports;
		a.return_size = sizeof(di.ports);
		a.op = HL_INFO_NIC_PORTS;
		if (ioctl(fd, HL_IOCTL_INFO, &a))
			return;
		di.valid = true;
		st_lock();
		ps->dev[dev] = di;
		st_unlock();
	}
}

/* Close an fd under the other threads' feet */
void op_close(struct worker *w)
{
	int i, fd;
	uint32_t file;
	bool last;

	st_lock();
	if (!ps->nfds) {
		st_unlock();
		return;
	}
	i = rnd(&w->r, ps->nfds);
	fd = ps->fds[i].fd;
	file = ps->fds[i].file;
	REMOVE_AT(ps->fds, ps->nfds, i);
	last = !file_open_locked(file);
	if (last)
		forget_file_locked(file);
	/* close under the lock, so that no one reuses the number meanwhile */
	note(w, close(fd) ? -errno : 0, "close(%d) %s", fd, last ? "last" : "dup left");
	st_unlock();
	atomic_fetch_add(&sh->closes, 1);
}

void op_dup(struct worker *w)
{
	int i, fd;

	st_lock();
	if (!ps->nfds || ps->nfds >= MAX_FDS - 4) {
		st_unlock();
		return;
	}
	i = rnd(&w->r, ps->nfds);
	fd = dup(ps->fds[i].fd);
	note(w, fd < 0 ? -errno : fd, "dup(%d)", ps->fds[i].fd);
	if (fd >= 0) {
		struct fdobj o = ps->fds[i];

		o.fd = fd;
		ps->fds[ps->nfds++] = o;
	}
	st_unlock();
}

/* dup2(a, b) over another of the table's fds: b's file drops, b becomes a */
void op_dup2(struct worker *w)
{
	int a, b, rc;
	uint32_t old;

	st_lock();
	if (ps->nfds < 2) {
		st_unlock();
		return;
	}
	a = rnd(&w->r, ps->nfds);
	b = rnd(&w->r, ps->nfds);
	if (a == b) {
		st_unlock();
		return;
	}
	rc = dup2(ps->fds[a].fd, ps->fds[b].fd);
	note(w, rc < 0 ? -errno : rc, "dup2(%d, %d)", ps->fds[a].fd, ps->fds[b].fd);
	if (rc >= 0) {
		old = ps->fds[b].file;
		ps->fds[b] = (struct fdobj){ ps->fds[b].fd, ps->fds[a].dev,
			ps->fds[a].kind, ps->fds[a].file, ps->fds[a].size };
		if (!file_open_locked(old))
			forget_file_locked(old);
	}
	st_unlock();
}

/* A child that uses the inherited fds, then exits */
void op_fork(struct worker *w)
{
	pid_t pid;
	int status;

	if (in_child)
		return;
	st_lock();
	pid = fork();
	if (!pid) {
		in_child = true;
		worker_reseal(w, false);	/* the trace buffer is the parent's */
		atomic_store(&w->slot->pid, getpid());
		run_calls(w, 8 + rnd(&w->r, 40));
		_exit(0);
	}
	st_unlock();
	note(w, pid < 0 ? -errno : pid, "fork");
	if (pid < 0)
		return;
	atomic_fetch_add(&sh->forks, 1);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		char line[FAIL_LINE];

		crash_line(line, sizeof(line), pid, WTERMSIG(status));
		fail(EXIT_CRASH, "forked child of %s", line);
	}
}

/* ---- INFO ---- */

void op_info(struct worker *w)
{
	static const uint32_t ops_[] = {
		HL_INFO_HW_IP_INFO, HL_INFO_DRAM_USAGE, HL_INFO_HW_IDLE,
		HL_INFO_DEVICE_STATUS, HL_INFO_PAGE_FAULT_EVENT, HL_INFO_NIC_PORTS,
		HL_INFO_SYNC_MANAGER,
	};
	static const uint32_t sizes[] = {
		sizeof(struct hl_info_hw_ip_info), sizeof(struct hl_info_dram_usage),
		sizeof(struct hl_info_hw_idle), sizeof(struct hl_info_device_status),
		sizeof(struct hl_info_page_fault_event),
		sizeof(struct hl_info_nic_ports),
		sizeof(struct hl_info_sync_manager),
	};
	struct hl_info_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_INFO, .arg = &a, .size = sizeof(a) };
	int k = rnd(&w->r, sizeof(ops_) / sizeof(ops_[0]));

	c.fd = chance(&w->r, 50) ? pick_fd(w, F_CONTROL, NULL, NULL) :
				   pick_compute(w, NULL, NULL);
	if (c.fd < 0)
		return;
	a.op = ops_[k];
	a.return_size = sizes[k];
	a.return_pointer = (uintptr_t)w->out;
	if (chance(&w->r, 10))
		a.op = (uint32_t)interesting(&w->r);
	if (chance(&w->r, 10))
		a.return_size = (uint32_t)interesting(&w->r) & 0xfffff;
	if (chance(&w->r, 10)) {
		switch (rnd(&w->r, 5)) {
		case 0: a.return_pointer = 0; break;
		case 1: a.return_pointer = (uintptr_t)w->ro; break;
		case 2: a.return_pointer = (uintptr_t)(w->guard + PAGE); break;
		case 3: a.return_pointer = 0xffff888000000000ULL; break;
		default:
			a.return_pointer = (uintptr_t)(w->guard + PAGE - 8);
		}
	}
	if (a.return_size > 65536 && a.return_pointer == (uintptr_t)w->out)
		a.return_size = 65536;
	/* SYNC_MANAGER's union member is the dcore: GAUDI's four answer */
	if (a.op == HL_INFO_SYNC_MANAGER)
		a.dcore_id = rnd(&w->r, HL_GAUDI_ES_DCORE + 1);
	if (chance(&w->r, 5)) {
		c.must_fail = true;
		if (a.op == HL_INFO_SYNC_MANAGER && chance(&w->r, 50))
			a.dcore_id = HL_GAUDI_ES_DCORE + 1 +
				     rnd(&w->r, 0xffffffff - HL_GAUDI_ES_DCORE);
		else if (a.op != HL_INFO_SYNC_MANAGER && chance(&w->r, 50))
			a.ctx_id = 1 + rnd(&w->r, 0xffffffff);
		else
			a.pad = 1 + rnd(&w->r, 0xffffffff);
	}
	pick_modes(w, &c);
	do_call(w, &c);
}

/*
 * Upstream's INFO ops that the emulated device cannot mean: -EOPNOTSUPP
 * whatever the buffer, so success is a violation (with a pad, -EINVAL)
 */
void op_info_unsup(struct worker *w)
{
	static const uint32_t ops_[] = {
		HL_INFO_CLK_RATE, HL_INFO_PCI_COUNTERS,
		HL_INFO_CLK_THROTTLE_REASON, HL_INFO_TOTAL_ENERGY,
		HL_INFO_PLL_FREQUENCY, HL_INFO_POWER,
		HL_INFO_DRAM_REPLACED_ROWS, HL_INFO_DRAM_PENDING_ROWS,
		HL_INFO_SECURED_ATTESTATION, HL_INFO_FW_GENERIC_REQ,
	};
	struct hl_info_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_INFO, .arg = &a, .size = sizeof(a),
			  .must_fail = true,
			  .why = "an INFO op the device cannot serve succeeded (want EOPNOTSUPP)" };

	c.fd = chance(&w->r, 50) ? pick_fd(w, F_CONTROL, NULL, NULL) :
				   pick_compute(w, NULL, NULL);
	if (c.fd < 0)
		return;
	a.op = ops_[rnd(&w->r, sizeof(ops_) / sizeof(ops_[0]))];
	a.return_pointer = chance(&w->r, 90) ? (uintptr_t)w->out : 0;
	a.return_size = chance(&w->r, 80) ? 8 * (1 + rnd(&w->r, 64)) :
			(uint32_t)interesting(&w->r) & 0xffff;
	/* the op's argument: a PLL index, a nonce, a sub-opcode */
	a.pll_index = chance(&w->r, 50) ? rnd(&w->r, 32) :
		      (uint32_t)interesting(&w->r);
	if (chance(&w->r, 5))
		a.pad = 1 + rnd(&w->r, 0xffffffff);
	pick_modes(w, &c);
	do_call(w, &c);
}

/* ---- DEBUG ---- */

/*
 * HL_IOCTL_DEBUG: upstream's CoreSight ops; the device has none of the
 * blocks, so no such call succeeds: a valid op is -EOPNOTSUPP, an op above
 * SET_MODE or a ctx_id -EINVAL (and the control node refuses it). SET_MODE
 * alone is served (the debug mode, as upstream's): it may succeed.
 */
void op_debug(struct worker *w)
{
	struct hl_debug_params_spmu params;
	struct hl_debug_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_DEBUG, .arg = &a, .size = sizeof(a),
			  .must_fail = true,
			  .why = "a DEBUG call succeeded on a device without CoreSight blocks" };

	c.fd = chance(&w->r, 85) ? pick_compute(w, NULL, NULL) :
				   pick_fd(w, F_CONTROL, NULL, NULL);
	if (c.fd < 0)
		return;
	memset(&params, 0, sizeof(params));
	params.event_types_num = rnd(&w->r, HL_DEBUG_MAX_AUX_VALUES + 2);
	a.op = chance(&w->r, 85) ? rnd(&w->r, HL_DEBUG_OP_SET_MODE + 1) :
	       (uint32_t)interesting(&w->r);
	c.must_fail = a.op != HL_DEBUG_OP_SET_MODE;
	a.input_ptr = chance(&w->r, 80) ? (uintptr_t)&params :
		      (uintptr_t)interesting(&w->r);
	a.input_size = chance(&w->r, 80) ? sizeof(params) :
		       (uint32_t)interesting(&w->r);
	a.output_ptr = chance(&w->r, 50) ? (uintptr_t)w->out : 0;
	a.output_size = a.output_ptr ? 8 * rnd(&w->r, 64) : 0;
	a.reg_idx = rnd(&w->r, 64);
	a.enable = rnd(&w->r, 2);
	if (chance(&w->r, 5))
		a.ctx_id = 1 + rnd(&w->r, 0xffffffff);
	pick_modes(w, &c);
	do_call(w, &c);
}

/* ---- anything on any file ---- */

void op_raw(struct worker *w)
{
	uint8_t arg[256];
	struct call c = { .arg = arg };
	unsigned int type, dir, nr;
	size_t i;

	c.fd = pick_fd(w, rnd(&w->r, F_NUM), NULL, NULL);
	if (c.fd < 0)
		return;
	for (i = 0; i < sizeof(arg); i += 8) {
		uint64_t v = chance(&w->r, 50) ? 0 : interesting(&w->r);

		memcpy(arg + i, &v, 8);
	}
	type = chance(&w->r, 60) ? 'H' : chance(&w->r, 50) ? 'I' : chance(&w->r, 50) ?
	       'b' : rnd(&w->r, 256);
	/* not sync_file's: SYNC_IOC_FILE_INFO writes through a pointer in the struct */
	if (type == '>')
		type = 'H';
	nr = rnd(&w->r, 16);
	dir = rnd(&w->r, 4);
	c.size = rnd(&w->r, 200);
	/* never the dma-buf core's or the importer's blocking/DMA ioctls */
	if (type == 'I' && (nr == 3 || nr == 4))
		nr = 7;
	/* no dma-buf ioctl that creates fds the fuzzer would not know */
	if (type == 'b' && (nr == 2 || nr == 3))
		nr = 0;
	/* no wait without a bound: WAIT_CS and CQ_WAIT get real structs */
	if (type == 'H' && (nr == _IOC_NR(HL_IOCTL_WAIT_CS) ||
			    nr == _IOC_NR(HL_IOCTL_NIC))) {
		memset(arg, 0, sizeof(arg));
	}
	c.cmd = _IOC(dir, type, nr, c.size);
	do_call(w, &c);
}
