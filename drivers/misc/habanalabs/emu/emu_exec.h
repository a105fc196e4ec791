/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the engines' entry points, shared by the two packet
 * decoders: this project's format (emu_queue.c, asic=emu) and GAUDI's
 * (emu_gaudi_pkt.c, asic=gaudi). Each decoder reads its packets, checks
 * their fields, and hands the engine the view below; no engine is
 * duplicated. The views are the uAPI packets of habanalabs_pkt.h (struct
 * hl_pkt_*) as the engine reads them.
 */
#ifndef HL_EMU_EXEC_H_
#define HL_EMU_EXEC_H_

#include "emu.h"

/* The packets as the engine reads them: little-endian */
struct hl_emu_pkt_hdr {
	__le32 ctl;
	__le32 word1;
};

struct hl_emu_pkt_lin_dma {
	__le32 ctl;
	__le32 pad;
	__le64 src_addr;
	__le64 dst_addr;
	__le64 tsize;
};

struct hl_emu_pkt_memset {
	__le32 ctl;
	__le32 pad;
	__le64 dst_addr;
	__le64 value;
	__le64 tsize;
};

struct hl_emu_pkt_msg_long {
	__le32 ctl;
	__le32 value;
	__le64 addr;
};

struct hl_emu_pkt_fence {
	__le32 ctl;
	__le32 cfg;
};

struct hl_emu_pkt_reduce {
	__le32 ctl;
	__le32 count;
	__le64 src_addr;
	__le64 dst_addr;
	__le32 dtype;
	__le32 op;
};

int hl_emu_job_check(struct hl_emu_queue *q, struct hl_cs_job *job);
int hl_emu_chunk_access(struct hl_emu_queue *q, struct hl_cs_job *job,
			u64 va, void *buf, u32 len, bool write);
int hl_emu_fetch(struct hl_emu_queue *q, struct hl_cs_job *job, u64 va,
		 void *buf, u32 len);
int hl_emu_fetch_va(struct hl_emu_queue *q, struct hl_cs_job *job, u64 va,
		    void *buf, u32 len);
int hl_emu_exec_lin_dma(struct hl_emu_queue *q, struct hl_cs_job *job,
			const struct hl_emu_pkt_lin_dma *pkt);
int hl_emu_exec_memset(struct hl_emu_queue *q, struct hl_cs_job *job,
		       const struct hl_emu_pkt_memset *pkt);
int hl_emu_exec_msg_long(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_msg_long *pkt);
int hl_emu_exec_fence(struct hl_emu_queue *q, struct hl_cs_job *job,
		      const struct hl_emu_pkt_fence *pkt);
int hl_emu_exec_fence_slot(struct hl_emu_queue *q, struct hl_cs_job *job,
			   const struct hl_emu_pkt_fence *pkt, u32 slot);
int hl_emu_exec_reduce(struct hl_emu_queue *q, struct hl_cs_job *job,
		       const struct hl_emu_pkt_reduce *pkt);

/* emu_gaudi_pkt.c: GAUDI's format */
int hl_emu_gaudi_run_job(struct hl_emu_queue *q, struct hl_cs_job *job);
u32 hl_emu_gaudi_kpkt_msg_long(void *buf, u64 addr, u32 value);
u32 hl_emu_gaudi_kpkt_fence(void *buf, u32 cfg);

#endif /* HL_EMU_EXEC_H_ */
