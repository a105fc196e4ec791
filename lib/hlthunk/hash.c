// SPDX-License-Identifier: MIT
/*
 * hash.c - hl-thunk's hash table helpers (hlthunk_hash_*): a map from
 * unsigned long keys to pointers, for callers that keep their own tables
 * of handles. hl-thunk-open declares these functions without defining
 * them; the semantics here are libhlthunk's own, written next to each.
 *
 * Open addressing with linear probing and backward-shift deletion, grown
 * at 3/4 load. Iteration (hlthunk_hash_first(), hlthunk_hash_next()) is in
 * ascending key order and keeps no state in the table: each step looks
 * for the smallest key above the previous one, so entries may be inserted
 * or deleted between steps (O(n) a step). Not thread-safe: the caller
 * serialises calls on one table.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "hlthunk_internal.h"

/* HLTHUNK_2.3, and non-default HLTHUNK_2.1 for 2.2.0's binaries */
HLTHUNK_MOVED_FROM_2_1(hlthunk_hash_create);
HLTHUNK_MOVED_FROM_2_1(hlthunk_hash_delete);
HLTHUNK_MOVED_FROM_2_1(hlthunk_hash_destroy);
HLTHUNK_MOVED_FROM_2_1(hlthunk_hash_first);
HLTHUNK_MOVED_FROM_2_1(hlthunk_hash_insert);
HLTHUNK_MOVED_FROM_2_1(hlthunk_hash_lookup);
HLTHUNK_MOVED_FROM_2_1(hlthunk_hash_next);

struct hlthunk_hash_slot {
	unsigned long key;
	void *value;
	bool used;
};

struct hlthunk_hash {
	struct hlthunk_hash_slot *slots;
	size_t cap;		/* a power of two */
	size_t count;
};

#define HLTHUNK_HASH_MIN_CAP	16

static size_t hlthunk_hash_index(const struct hlthunk_hash *h, unsigned long key)
{
	uint64_t x = (uint64_t)key;

	/* splitmix64's finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (size_t)x & (h->cap - 1);
}

/* The slot holding @key, or NULL */
static struct hlthunk_hash_slot *hlthunk_hash_find(const struct hlthunk_hash *h,
						   unsigned long key)
{
	size_t i = hlthunk_hash_index(h, key);

	while (h->slots[i].used) {
		if (h->slots[i].key == key)
			return &h->slots[i];
		i = (i + 1) & (h->cap - 1);
	}
	return NULL;
}

static void hlthunk_hash_place(struct hlthunk_hash *h, unsigned long key,
			       void *value)
{
	size_t i = hlthunk_hash_index(h, key);

	while (h->slots[i].used)
		i = (i + 1) & (h->cap - 1);
	h->slots[i].key = key;
	h->slots[i].value = value;
	h->slots[i].used = true;
	h->count++;
}

static int hlthunk_hash_grow(struct hlthunk_hash *h)
{
	struct hlthunk_hash_slot *old = h->slots;
	size_t i, old_cap = h->cap;

	h->slots = calloc(old_cap * 2, sizeof(*h->slots));
	if (!h->slots) {
		h->slots = old;
		return hlthunk_err(ENOMEM);
	}
	h->cap = old_cap * 2;
	h->count = 0;
	for (i = 0; i < old_cap; i++)
		if (old[i].used)
			hlthunk_hash_place(h, old[i].key, old[i].value);
	free(old);
	return 0;
}

/* Returns a new empty table, or NULL with errno ENOMEM */
hlthunk_public void *hlthunk_hash_create(void)
{
	struct hlthunk_hash *h = calloc(1, sizeof(*h));

	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->cap = HLTHUNK_HASH_MIN_CAP;
	h->slots = calloc(h->cap, sizeof(*h->slots));
	if (!h->slots) {
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	return h;
}

/* Frees the table (not the values): 0, or -EINVAL for NULL */
hlthunk_public int hlthunk_hash_destroy(void *t)
{
	struct hlthunk_hash *h = t;

	if (!h)
		return hlthunk_err(EINVAL);
	free(h->slots);
	free(h);
	return 0;
}

/* *value = the value of @key: 0, -ENOENT (no such key), -EINVAL */
hlthunk_public int hlthunk_hash_lookup(void *t, unsigned long key, void **value)
{
	struct hlthunk_hash_slot *s;

	if (!t || !value)
		return hlthunk_err(EINVAL);
	s = hlthunk_hash_find(t, key);
	if (!s)
		return hlthunk_err(ENOENT);
	*value = s->value;
	return 0;
}

/* Maps @key to @value, replacing an earlier value: 0, -ENOMEM, -EINVAL */
hlthunk_public int hlthunk_hash_insert(void *t, unsigned long key, void *value)
{
	struct hlthunk_hash *h = t;
	struct hlthunk_hash_slot *s;
	int rc;

	if (!h)
		return hlthunk_err(EINVAL);
	s = hlthunk_hash_find(h, key);
	if (s) {
		s->value = value;
		return 0;
	}
	if ((h->count + 1) * 4 > h->cap * 3) {
		rc = hlthunk_hash_grow(h);
		if (rc)
			return rc;
	}
	hlthunk_hash_place(h, key, value);
	return 0;
}

/* Removes @key: 0, -ENOENT (no such key), -EINVAL */
hlthunk_public int hlthunk_hash_delete(void *t, unsigned long key)
{
	struct hlthunk_hash *h = t;
	struct hlthunk_hash_slot *s;
	size_t i, j, home;

	if (!h)
		return hlthunk_err(EINVAL);
	s = hlthunk_hash_find(h, key);
	if (!s)
		return hlthunk_err(ENOENT);

	/* Backward shift: no tombstones, lookups stay correct */
	i = (size_t)(s - h->slots);
	j = i;
	for (;;) {
		h->slots[i].used = false;
		for (;;) {
			j = (j + 1) & (h->cap - 1);
			if (!h->slots[j].used)
				goto out;
			home = hlthunk_hash_index(h, h->slots[j].key);
			/* j's entry may move to i unless its home is in (i, j] */
			if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		h->slots[i] = h->slots[j];
		i = j;
	}
out:
	h->count--;
	return 0;
}

/* The entry with the smallest key above *@key (any key when !@after) */
static int hlthunk_hash_step(void *t, unsigned long *key, void **value,
			     bool after)
{
	struct hlthunk_hash *h = t;
	const struct hlthunk_hash_slot *best = NULL;
	size_t i;

	if (!h || !key || !value)
		return hlthunk_err(EINVAL);
	for (i = 0; i < h->cap; i++) {
		const struct hlthunk_hash_slot *s = &h->slots[i];

		if (!s->used || (after && s->key <= *key))
			continue;
		if (!best || s->key < best->key)
			best = s;
	}
	if (!best)
		return hlthunk_err(ENOENT);
	*key = best->key;
	*value = best->value;
	return 0;
}

/* The entry with the smallest key: 0, -ENOENT (empty), -EINVAL */
hlthunk_public int hlthunk_hash_first(void *t, unsigned long *key, void **value)
{
	return hlthunk_hash_step(t, key, value, false);
}

/*
 * The entry after *@key in ascending order (*@key need not be in the
 * table any more): 0 with *@key and *@value updated, -ENOENT at the end.
 */
hlthunk_public int hlthunk_hash_next(void *t, unsigned long *key, void **value)
{
	return hlthunk_hash_step(t, key, value, true);
}
