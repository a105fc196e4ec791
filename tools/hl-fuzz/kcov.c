// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: KCOV: the module's text, collecting the PCs each ioctl reaches.
 */

#include "hl-fuzz.h"

/* module text ranges, for KCOV filtering */
struct text_range text_range[16];
int ntext;
uint64_t kaslr_off;

/* ---- KCOV ---- */

static bool pc_in_module(uint64_t pc)
{
	int i;

	for (i = 0; i < ntext; i++)
		if ((pc >= text_range[i].start && pc < text_range[i].end) ||
		    (pc + kaslr_off >= text_range[i].start &&
		     pc + kaslr_off < text_range[i].end))
			return true;
	return false;
}

void kcov_collect(struct worker *w)
{
	uint64_t n = __atomic_load_n(&w->cover[0], __ATOMIC_RELAXED), i;

	if (n > COVER_SIZE - 1)
		n = COVER_SIZE - 1;
	for (i = 0; i < n; i++) {
		uint64_t pc = w->cover[i + 1];

		if (!pc_in_module(pc))
			continue;
		if (set_insert(sh->pcs, PCSET_SIZE, pc)) {
			atomic_fetch_add(&sh->npcs, 1);
			w->prog_new = true;
		}
		if (set_insert(sh->pcs, PCSET_SIZE,
			       (w->prev_pc * 0x2545f4914f6cdd1dULL) ^ pc ^ 1ULL << 62)) {
			atomic_fetch_add(&sh->nedges, 1);
			w->prog_new = true;
		}
		w->prev_pc = pc;
	}
}

void kcov_start(struct worker *w)
{
	int fd = open("/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);

	w->kcov = false;
	if (fd < 0 || opt.no_kcov || !ntext) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (ioctl(fd, KCOV_INIT_TRACE, (unsigned long)COVER_SIZE))
		goto err_close;
	w->cover = mmap(NULL, COVER_SIZE * sizeof(uint64_t),
			PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w->cover == MAP_FAILED)
		goto err_close;
	if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
		goto err_unmap;
	w->kcov_fd = fd;
	w->kcov = true;
	atomic_fetch_add(&sh->kcov_workers, 1);
	return;

err_unmap:
	munmap(w->cover, COVER_SIZE * sizeof(uint64_t));
err_close:
	close(fd);
}

void load_text_ranges(void)
{
	struct {
		char name[256];
		uint64_t addr;
	} sec[256];
	int nsec = 0, i, j;
	DIR *d = opendir("/sys/module/habanalabs/sections");
	struct dirent *de;
	FILE *f;
	char line[256];

	if (!d)
		return;
	while ((de = readdir(d)) && nsec < 256) {
		char path[384];
		unsigned long long a;

		if (de->d_name[0] == '.' && (!de->d_name[1] ||
					     (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "/sys/module/habanalabs/sections/%s",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llx", &a) == 1 && a) {
			snprintf(sec[nsec].name, sizeof(sec[nsec].name), "%s",
				 de->d_name);
			sec[nsec++].addr = a;
		}
		fclose(f);
	}
	closedir(d);
	/* a text section ends where the next section (by address) starts */
	for (i = 0; i < nsec && ntext < 16; i++) {
		uint64_t end = ~0ULL;

		if (strcmp(sec[i].name, ".text") &&
		    strncmp(sec[i].name, ".text.", 6))
			continue;
		for (j = 0; j < nsec; j++)
			if (sec[j].addr > sec[i].addr && sec[j].addr < end)
				end = sec[j].addr;
		if (end == ~0ULL)
			end = sec[i].addr + (4 << 20);
		text_range[ntext].start = sec[i].addr;
		text_range[ntext++].end = end;
	}
	/* KCOV reports PCs minus the kernel's KASLR offset */
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[128];

		if (sscanf(line, "%llx %c %127s", &a, &t, name) == 3 &&
		    !strcmp(name, "_text")) {
			if (a >= 0xffffffff81000000ULL)
				kaslr_off = a - 0xffffffff81000000ULL;
			break;
		}
	}
	if (f)
		fclose(f);
}
