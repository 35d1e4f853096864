# SPDX-License-Identifier: GPL-2.0
#
# Mutation targets, included by the top-level Makefile (docs/testing.md,
# "Mutants"):
#
#   make mutants    every audit mutant (tools/testing/mutants/audit/*.patch)
#                   on a scratch copy of the tree: the simulation
#                   (SIM_SEEDS, default 200), the host build, and with
#                   MUTANTS_VM=1 the KUnit modules and VM tests each one
#                   names, in the KERNEL debug VM (only a kernel built
#                   already); prints the kill table (scripts/mutants.sh)
#   make mutate     the mechanical mutants of the wheel's sources, each run
#                   against the simulation (MUTATE_SEEDS, default 200;
#                   MUTATE_ARGS for scripts/mutate.py, e.g. "--only 1-20";
#                   MUTATE_J, at most 2); prints the survivors and the kill
#                   share (scripts/mutate.py --list shows the mutants)

.PHONY: mutants mutate

MUTATE_SEEDS ?= 200
MUTATE_J ?= 2

# SIM_SEEDS is the simulation's own variable: no default set here.
mutants:
	SIM_SEEDS=$(or $(SIM_SEEDS),200) scripts/mutants.sh

# One seed at a time per mutant: -j runs two mutants at once.
mutate:
	scripts/mutate.py -j $(MUTATE_J) --build 'make -s sim-build' $(MUTATE_ARGS) -- \
		make -s sim SIM_SEEDS=$(MUTATE_SEEDS) SIM_JOBS=1
