/* SPDX-License-Identifier: GPL-2.0 */
/* Simulation shim: everything is in sim_kernel.h. */
#include "../sim_kernel.h"
