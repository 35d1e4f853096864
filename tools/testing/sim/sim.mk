# SPDX-License-Identifier: GPL-2.0
#
# The deterministic simulation (tools/testing/sim/README), included by the
# top-level Makefile: the module's own sources compiled in user space
# against shim headers and a simulated machine, run against a model.
#
#   make sim          SIM_SEEDS seeds (default 1000) of SIM_OPS operations
#                     (default 1000), every 4th with fault injection; stops
#                     at the first failure and prints its seed and the
#                     shrunk operations as a replay command (a minute at
#                     most; `make check` runs it once for all kernels)
#   make sim-soak     the same, longer: SIM_SOAK_SEEDS (default 3000) of
#                     SIM_SOAK_OPS (default 3000), every 3rd with faults,
#                     built with ASan and UBSan (SIM_SANITIZE=0 without:
#                     about 10 times faster); `make soak` runs it first
#   make sim-build    only build the program (build/sim/sim)
#
# SIM_SRC=/path/to/kmod builds another copy of the sources (a mutant), in
# build/sim-<path>; SIM_SEED is the first seed (default 1), SIM_JOBS the
# seeds run at a time (default 2), SIM_FLAGS more options of the program
# (--all, --no-shrink, --faults, --no-invariant: tools/testing/sim/README).

.PHONY: sim sim-soak sim-build

SIM_SEEDS ?= 1000
SIM_OPS ?= 1000
SIM_SEED ?= 1
SIM_JOBS ?= 2
SIM_FLAGS ?=
SIM_SOAK_SEEDS ?= 3000
SIM_SOAK_OPS ?= 3000
SIM_SANITIZE ?= 1
SIM_SRC ?= $(CURDIR)/kmod
# One build directory per source tree: a mutant never reuses the tree's objects.
SIM_OUT ?= $(if $(filter $(abspath $(SIM_SRC)),$(CURDIR)/kmod),$(HWT_OUT)/sim,$(HWT_OUT)/sim-$(subst /,_,$(abspath $(SIM_SRC))))
SIM_MAKE = $(MAKE) -s -f tools/testing/sim/Makefile SIM_SRC=$(abspath $(SIM_SRC)) SIM_OUT=$(SIM_OUT)

sim-build:
	+$(SIM_MAKE)

sim: sim-build
	$(SIM_OUT)/sim --seed $(SIM_SEED) --seeds $(SIM_SEEDS) --ops $(SIM_OPS) --faults-every 4 \
		--jobs $(SIM_JOBS) $(SIM_FLAGS)

sim-soak:
	+$(SIM_MAKE) SANITIZE=$(SIM_SANITIZE)
	$(SIM_OUT)/sim$(if $(filter 1,$(SIM_SANITIZE)),-asan) --seed $(SIM_SEED) \
		--seeds $(SIM_SOAK_SEEDS) --ops $(SIM_SOAK_OPS) --faults-every 3 --jobs $(SIM_JOBS) \
		$(SIM_FLAGS)

# The host half of the soak: the simulation, before the VM's.
soak: sim-soak
