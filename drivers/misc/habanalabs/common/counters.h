/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the device's counters (counters.c); struct hl_dev_counters
 * is in events.h.
 */
#ifndef HL_COUNTERS_H_
#define HL_COUNTERS_H_

/* hl_events_job_start(), hl_events_job_end(): asic.h */
#include "asic.h"

struct hl_device;
struct hl_fpriv;
struct hl_info_args;
struct hl_ioctl_call;

void hl_events_ctx_open(struct hl_device *hdev);
void hl_events_ctx_release_begin(struct hl_device *hdev);
void hl_events_ctx_release_end(struct hl_device *hdev);

/* The counter ops of hl_events_info() (events.c) */
int hl_events_reset_count(struct hl_fpriv *fpriv, struct hl_info_args *args,
			  struct hl_ioctl_call *call);
int hl_events_time_sync(struct hl_info_args *args, struct hl_ioctl_call *call);
int hl_events_cs_counters(struct hl_fpriv *fpriv, struct hl_info_args *args,
			  struct hl_ioctl_call *call);
int hl_events_open_stats(struct hl_fpriv *fpriv, struct hl_info_args *args,
			 struct hl_ioctl_call *call);
int hl_events_utilization(struct hl_fpriv *fpriv, struct hl_info_args *args,
			  struct hl_ioctl_call *call);
int hl_events_last_open(struct hl_fpriv *fpriv, struct hl_info_args *args,
			struct hl_ioctl_call *call);
int hl_events_engine_status(struct hl_fpriv *fpriv, struct hl_info_args *args,
			    struct hl_ioctl_call *call);

#endif /* HL_COUNTERS_H_ */
