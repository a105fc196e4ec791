/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: engine accesses: what a backend's engines call around each
 * access to device memory, instead of touching the core's locks
 * (engine_access.c).
 */
#ifndef HL_ENGINE_ACCESS_H_
#define HL_ENGINE_ACCESS_H_

/* Every function of engine_access.c is a door call, declared in asic.h */
#include "asic.h"

#endif /* HL_ENGINE_ACCESS_H_ */
