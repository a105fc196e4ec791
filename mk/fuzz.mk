# SPDX-License-Identifier: MIT
#
# make fuzz: tools/hl-fuzz in the test VM for as long as asked (tools/hl-fuzz/run).
#
#   make fuzz COUNT=1000000 SECONDS=3600 SEED=0x1234 PROCS=2 THREADS=2
#   make fuzz DEBUG=1 SECONDS=1800     on the debug kernel, KCOV-guided
#   make fuzz ASIC=gaudi PROCS=1 THREADS=4   GAUDI's packet format
#
# make check runs it for about a minute (>= 50,000 ioctls); make check-debug
# for a few minutes on the debug kernel.

.PHONY: fuzz fuzz-run

## Run tools/hl-fuzz in a VM (COUNT= SECONDS= SEED= PROCS= THREADS= DEVICES= ARGS=; DEBUG=1: debug kernel; ASIC=gaudi)
fuzz: deps
	$(if $(filter 1,$(DEBUG)),$(MAKE) debug-kernel)
	$(MAKE) fuzz-run

## make fuzz without installing packages or building the debug kernel first
fuzz-run: all
	COUNT=$(COUNT) SECONDS_=$(SECONDS) SEED=$(SEED) PROCS=$(PROCS) \
		THREADS=$(THREADS) DEVICES=$(DEVICES) DEBUG=$(DEBUG) ASIC=$(ASIC) ARGS="$(ARGS)" \
		$(TOP)/tools/hl-fuzz/run
