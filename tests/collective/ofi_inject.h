/* SPDX-License-Identifier: MIT */
/*
 * libfabric failures planted by the collective suite (ofi_inject.c), from
 * outside the library. Built only where libfabric's headers are
 * (HLTESTS_HAVE_OFI).
 */
#ifndef HLTESTS_OFI_INJECT_H
#define HLTESTS_OFI_INJECT_H

#include <stdbool.h>

/*
 * Set before the rank's communicator opens its fabric: its address vector
 * then refuses every peer's address (fi_av_insert() fails)
 */
extern bool hltests_ofi_refuse_av;

/*
 * Set (1 .. 64) before the rank's communicator asks libfabric for its
 * providers: every answer then matches tags of that many bits
 * (mem_tag_format); 0 leaves them
 */
extern int hltests_ofi_tag_bits;

#endif
