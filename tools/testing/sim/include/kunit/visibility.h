/* SPDX-License-Identifier: GPL-2.0 */
#include "../sim_kernel.h"
