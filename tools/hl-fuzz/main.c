// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: options, sysfs helpers, unbind/rebind, the main loop (the monitor).
 */

#include "hl-fuzz.h"

static const struct {
	const char *name;
	unsigned int bit;
} known_bug_names[] = {
	{ "huge-host-map", KB_HUGE_HOST_MAP },
	{ "many-host-maps", KB_MANY_HOST_MAPS },
	{ "export-unbind", KB_EXPORT_UNBIND },
	{ "unbounded-timeout", KB_UNBOUNDED_TIMEOUT },
	{ "many-import-maps", KB_MANY_IMPORT_MAPS },
};

struct options opt = {
	.count = 50000, .seconds = 60, .procs = 2, .threads = 2, .devices = 0,
	.prog_len = 16, .hang_s = 90, .progress_s = 10, .known_bugs = KB_DEFAULT,
	.churn_ms = 100,
};

int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = 0;
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = 0;
	return 0;
}

static bool bound[MAX_DEVS];

static void rebind(int d)
{
	char path[128];

	if (bound[d])
		return;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", dev_bdf[d]);
	if (access(path, F_OK))
		write_file("/sys/bus/pci/drivers_probe", dev_bdf[d]);
	bound[d] = !access(path, F_OK);
	if (!bound[d])
		fail(EXIT_SETUP, "device %s did not bind again after unbind", dev_bdf[d]);
}

/* --unbind: unbind/rebind (and hard reset) devices while the workers run */
static void unbind_step(struct rng *r)
{
	int d = rnd(r, ndev);
	char path[128];

	if (!dev_bdf[d][0])
		return;
	snprintf(path, sizeof(path), "/sys/class/habanalabs/hl%d/hard_reset", d);
	if (opt.reset && !access(path, W_OK) && chance(r, 40)) {
		int rc = write_file(path, "1");

		if (rc || !opt.quiet)
			printf("hl-fuzz: hard reset of hl%d: %s\n", d,
			       rc ? strerror(-rc) : "done");
		atomic_fetch_add(&sh->resets, 1);
		return;
	}
	if (!opt.unbind)
		return;
	if (write_file("/sys/bus/pci/drivers/habanalabs/unbind", dev_bdf[d]) == 0) {
		bound[d] = false;
		atomic_fetch_add(&sh->unbinds, 1);
		usleep(20000 + rnd(r, 400000));
	}
	rebind(d);
}

void usage(void)
{
	printf("Usage: hl-fuzz [options]\n"
	       "  -s, --seed N          PRNG seed (default: from the clock; printed)\n"
	       "  -n, --count N         stop after N ioctls (default 50000)\n"
	       "  -T, --seconds S       stop after S seconds (default 60)\n"
	       "  -p, --procs N         worker processes (default 2)\n"
	       "  -t, --threads N       threads per process (default 2)\n"
	       "  -d, --devices N       use devices 0..N-1 (default: all /dev/hlN)\n"
	       "  -l, --prog-len N      calls per program (default 16)\n"
	       "      --unbind          unbind/rebind devices while fuzzing\n"
	       "      --reset           hard-reset devices while fuzzing (sysfs hard_reset)\n"
	       "      --corpus FILE     load programs from FILE, append new ones (KCOV)\n"
	       "      --no-kcov         do not use KCOV even when available\n"
	       "      --known-bugs LIST re-enable inputs of known bugs (all, or a comma list:\n"
	       "                        huge-host-map,many-host-maps,export-unbind,unbounded-timeout,\n"
	       "                        many-import-maps)\n"
	       "      --strict          a contract violation fails the run at once\n"
	       "      --no-leak-check   skip the DRAM/pinned-pages check at the end\n"
	       "      --hang S          a call running S seconds is a hang (default 90)\n"
	       "      --min-count N     run past --seconds (up to 4x) until N ioctls were made;\n"
	       "                        fail (exit 7) when fewer were\n"
	       "      --trace FILE      write one line per call (op, ioctl, forms, PRNG state,\n"
	       "                        result) to FILE: runs of one seed with -p 1 -t 1 and\n"
	       "                        no KCOV write the same trace\n"
	       "      --churn           owner churn: in each process, one more thread closes the\n"
	       "                        process's fds of a device's compute node and reopens it\n"
	       "                        while the workers keep calling (with --reset, hard-resets\n"
	       "                        the device it reopened now and then); off by default\n"
	       "      --churn-ms MS     mean time between two churns (default 100)\n"
	       "      --plant sealed|device|fill  self-test of the oracle: a stray store\n"
	       "                        into worker 0's sealed fields, one past their page's\n"
	       "                        protection, or one into its pages' fill (the run fails)\n"
	       "  -q, --quiet           no per-op table, no progress lines\n");
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 'T' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "devices", required_argument, NULL, 'd' },
		{ "prog-len", required_argument, NULL, 'l' },
		{ "unbind", no_argument, NULL, 'U' },
		{ "reset", no_argument, NULL, 'R' },
		{ "corpus", required_argument, NULL, 'C' },
		{ "no-kcov", no_argument, NULL, 'K' },
		{ "known-bugs", required_argument, NULL, 'B' },
		{ "strict", no_argument, NULL, 'S' },
		{ "no-leak-check", no_argument, NULL, 'L' },
		{ "hang", required_argument, NULL, 'H' },
		{ "min-count", required_argument, NULL, 'M' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "trace", required_argument, NULL, 'X' },
		{ "churn", no_argument, NULL, 'c' },
		{ "churn-ms", required_argument, NULL, 'm' },
		{ "plant", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool seeded = false;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:T:p:t:d:l:qh", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); seeded = true; break;
		case 'n': opt.count = strtoull(optarg, NULL, 0); break;
		case 'T': opt.seconds = atof(optarg); break;
		case 'p': opt.procs = atoi(optarg); break;
		case 't': opt.threads = atoi(optarg); break;
		case 'd': opt.devices = atoi(optarg); break;
		case 'l': opt.prog_len = atoi(optarg); break;
		case 'U': opt.unbind = true; break;
		case 'R': opt.reset = true; break;
		case 'C': opt.corpus = optarg; break;
		case 'K': opt.no_kcov = true; break;
		case 'S': opt.strict = true; break;
		case 'L': opt.no_leak_check = true; break;
		case 'H': opt.hang_s = atof(optarg); break;
		case 'M': opt.min_count = strtoull(optarg, NULL, 0); break;
		case 'q': opt.quiet = true; break;
		case 'X': opt.trace = optarg; break;
		case 'c': opt.churn = true; break;
		case 'm': opt.churn_ms = strtoul(optarg, NULL, 0); break;
		case 'P':
			opt.plant = !strcmp(optarg, "sealed") ? PLANT_SEALED :
				    !strcmp(optarg, "device") ? PLANT_DEVICE :
				    !strcmp(optarg, "fill") ? PLANT_FILL : PLANT_NONE;
			if (!opt.plant) {
				fprintf(stderr, "hl-fuzz: --plant sealed|device|fill\n");
				exit(EXIT_SETUP);
			}
			break;
		case 'B': {
			char *s = strdup(optarg), *save, *tok;
			size_t i;

			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				bool found = !strcmp(tok, "all");

				if (found)
					opt.known_bugs = ~0u;
				for (i = 0; i < sizeof(known_bug_names) / sizeof(known_bug_names[0]); i++)
					if (!strcmp(tok, known_bug_names[i].name)) {
						opt.known_bugs |= known_bug_names[i].bit;
						found = true;
					}
				if (!found) {
					fprintf(stderr, "hl-fuzz: unknown known bug '%s'\n", tok);
					exit(EXIT_SETUP);
				}
			}
			free(s);
			break;
		}
		case 'h': usage(); exit(0);
		default: usage(); exit(EXIT_SETUP);
		}
	}
	if (!seeded)
		opt.seed = now_ns() ^ ((uint64_t)getpid() << 32);
	if (opt.procs < 1 || opt.threads < 1 ||
	    opt.procs * (opt.threads + opt.churn) > MAX_WORKERS) {
		fprintf(stderr, "hl-fuzz: 1 .. %d workers (procs x threads, + procs with --churn)\n",
			MAX_WORKERS);
		exit(EXIT_SETUP);
	}
	if (opt.prog_len < 1 || opt.prog_len > MAX_PROG)
		opt.prog_len = 16;
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_WORKERS];
	int i, status, exited = 0, rc;
	uint64_t start, last_progress, last_unbind;
	long taint0;
	char old_timeout[32] = "";
	struct rng ur;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	ur.s = mix(opt.seed, 0xdead);

	for (ndev = 0; ndev < MAX_DEVS; ndev++) {
		char path[64];

		snprintf(path, sizeof(path), "/dev/hl%d", ndev);
		if (access(path, F_OK))
			break;
		snprintf(path, sizeof(path), "/sys/class/habanalabs/hl%d/pci_addr", ndev);
		if (read_file(path, dev_bdf[ndev], sizeof(dev_bdf[ndev])))
			dev_bdf[ndev][0] = 0;
		bound[ndev] = true;
	}
	if (opt.devices && opt.devices < ndev)
		ndev = opt.devices;
	if (!ndev) {
		fprintf(stderr, "hl-fuzz: no /dev/hl0: is the driver loaded and bound?\n");
		return EXIT_SETUP;
	}
	dma_api_debug = !access("/sys/kernel/debug/dma-api", F_OK);
	/* --churn: one more thread per process, in the slots after the workers */
	nworkers = opt.procs * (opt.threads + opt.churn);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED) {
		perror("hl-fuzz: mmap");
		return EXIT_SETUP;
	}
	load_text_ranges();
	if (opt.corpus)
		load_corpus();
	if (opt.trace) {
		trace_fd = open(opt.trace, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
				0644);
		if (trace_fd < 0) {
			perror(opt.trace);
			return EXIT_SETUP;
		}
	}

	/* short default job timeout: a CS that gives none must not wait 30 s */
	if (!read_file("/sys/module/habanalabs/parameters/timeout_locked", old_timeout,
		       sizeof(old_timeout)))
		write_file("/sys/module/habanalabs/parameters/timeout_locked", "2");

	/* The packet format the engines speak: GAUDI's under asic=gaudi */
	{
		char asic[16];

		gaudi_format = !read_file("/sys/module/habanalabs/parameters/asic",
					  asic, sizeof(asic)) && !strcmp(asic, "gaudi");
	}

	printf("hl-fuzz: seed 0x%" PRIx64 ", %d processes x %d threads, %d devices, up to %"
	       PRIu64 " ioctls or %.0f s%s%s%s\n",
	       opt.seed, opt.procs, opt.threads, ndev, opt.count, opt.seconds,
	       opt.unbind ? ", unbind/rebind" : "", opt.reset ? ", hard resets" : "",
	       gaudi_format ? ", GAUDI's packets (asic=gaudi)" : "");
	if (opt.churn)
		printf("hl-fuzz: owner churn: one thread per process closes and reopens a compute node every ~%u ms%s\n",
		       opt.churn_ms, opt.reset ? ", sometimes hard-resetting it" : "");
	if (opt.known_bugs != KB_DEFAULT)
		printf("hl-fuzz: inputs of known bugs enabled: 0x%x\n", opt.known_bugs);
	{
		bool kcov_file = !access("/sys/kernel/debug/kcov", F_OK);

		if (opt.no_kcov)
			printf("hl-fuzz: KCOV: off (--no-kcov)\n");
		else if (!kcov_file)
			printf("hl-fuzz: KCOV: not available (kernel without CONFIG_KCOV, or no debugfs): running without coverage guidance\n");
		else if (!ntext)
			printf("hl-fuzz: KCOV: no module text found (/sys/module/habanalabs/sections): running without coverage guidance\n");
		else
			printf("hl-fuzz: KCOV: on, %d text section(s) of habanalabs from 0x%" PRIx64
			       " (KASLR offset 0x%" PRIx64 ")\n", ntext, text_range[0].start,
			       kaslr_off);
	}
	if (opt.reset && access("/sys/class/habanalabs/hl0/hard_reset", W_OK))
		printf("hl-fuzz: --reset: the driver has no sysfs hard_reset: no hard resets\n");
	if (dma_api_debug && !(opt.known_bugs & KB_MANY_HOST_MAPS))
		printf("hl-fuzz: DMA-API debugging on: at most 4 live maps of a host buffer (issue 9 item 7)\n");
	if (dma_api_debug && !(opt.known_bugs & KB_MANY_IMPORT_MAPS))
		printf("hl-fuzz: DMA-API debugging on: at most 4 imports per process (many-import-maps)\n");

	kmsg_open();
	taint0 = read_taint();
	start = now_ns();
	last_progress = last_unbind = start;

	for (i = 0; i < opt.procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("hl-fuzz: fork");
			atomic_store(&sh->stop, 1);
			opt.procs = i;
			break;
		}
		if (!pids[i])
			process_main(i);
	}

	while (exited < opt.procs) {
		uint64_t t = now_ns();
		double secs = (t - start) / 1e9;
		pid_t pid;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			exited++;
			if (WIFSIGNALED(status) && !atomic_load(&sh->stop)) {
				char line[FAIL_LINE];

				crash_line(line, sizeof(line), pid, WTERMSIG(status));
				fail(EXIT_CRASH, "%s", line);
			}
			else if (WIFEXITED(status) && WEXITSTATUS(status) &&
				 !atomic_load(&sh->failed))
				fail(EXIT_CRASH, "worker process %d exited with %d", pid,
				     WEXITSTATUS(status));
		}
		if (kmsg_check()) {
			usleep(300000);	/* the rest of the report */
			kmsg_check();
			fail(EXIT_KREPORT, "kernel report:\n%s%s", kmsg_report,
			     report_task());
		}
		if (read_taint() != taint0 && !atomic_load(&sh->failed)) {
			usleep(300000);
			kmsg_check();
			fail(EXIT_KREPORT, "the kernel is tainted now (%ld, was %ld)\n%s",
			     read_taint(), taint0, kmsg_report);
		}
		for (i = 0; i < nworkers; i++) {
			uint64_t cs = atomic_load(&sh->slot[i].call_start_ns);

			if (cs && t > cs && (t - cs) / 1e9 > opt.hang_s)
				fail(EXIT_HANG, "worker %d: a call has run for %.0f s",
				     i, (t - cs) / 1e9);
		}
		/* --min-count stretches the time, up to 4 times --seconds */
		if ((secs >= opt.seconds && atomic_load(&sh->ncalls) >= opt.min_count) ||
		    secs >= 4 * opt.seconds || atomic_load(&sh->ncalls) >= opt.count)
			atomic_store(&sh->stop, 1);
		if (!atomic_load(&sh->stop) && (opt.unbind || opt.reset) &&
		    t - last_unbind > 300000000ULL + rnd(&ur, 1500000000ULL)) {
			unbind_step(&ur);
			last_unbind = now_ns();
		}
		if (!opt.quiet && t - last_progress > opt.progress_s * 1e9) {
			printf("hl-fuzz: %.0f s: %" PRIu64 " ioctls (%.0f/s), %" PRIu64
			       " outcomes, %" PRIu64 " PCs, corpus %u\n", secs,
			       atomic_load(&sh->ncalls), atomic_load(&sh->ncalls) / secs,
			       atomic_load(&sh->npaths), atomic_load(&sh->npcs),
			       atomic_load(&sh->ncorpus));
			last_progress = t;
		}
		/* a stuck worker process after stop: kill it after the hang limit */
		if (atomic_load(&sh->stop) && secs > 4 * opt.seconds + opt.hang_s + 30) {
			for (i = 0; i < opt.procs; i++)
				kill(pids[i], SIGKILL);
		}
		usleep(50000);
	}
	for (i = 0; i < ndev; i++)
		rebind(i);
	if (old_timeout[0])
		write_file("/sys/module/habanalabs/parameters/timeout_locked", old_timeout);
	if (!atomic_load(&sh->failed) && !opt.no_leak_check)
		leak_check();
	usleep(200000);
	if (kmsg_check())
		fail(EXIT_KREPORT, "kernel report:\n%s", kmsg_report);
	print_summary((now_ns() - start) / 1e9);
	rc = atomic_load(&sh->failed);
	if (!rc && atomic_load(&sh->violations)) {
		rc = EXIT_VIOLATION;
		snprintf(sh->fail_line, sizeof(sh->fail_line),
			 "%" PRIu64 " contract violations, the first: %.150s",
			 atomic_load(&sh->violations), sh->viol_msgs[0]);
	}
	if (!rc && atomic_load(&sh->ncalls) < opt.min_count) {
		printf("hl-fuzz: only %" PRIu64 " ioctls, fewer than the %" PRIu64 " asked for\n",
		       atomic_load(&sh->ncalls), opt.min_count);
		rc = EXIT_SHORT;
		snprintf(sh->fail_line, sizeof(sh->fail_line),
			 "only %" PRIu64 " ioctls, fewer than the %" PRIu64 " asked for",
			 atomic_load(&sh->ncalls), opt.min_count);
	}
	/* the last line says why, in short: a CI log keeps the tail */
	if (rc && sh->fail_line[0])
		printf("hl-fuzz: FAILED (seed 0x%" PRIx64 ", exit %d): %s\n", opt.seed,
		       rc, sh->fail_line);
	else
		printf("hl-fuzz: %s (seed 0x%" PRIx64 ")\n", rc ? "FAILED" : "ok",
		       opt.seed);
	return rc;
}
