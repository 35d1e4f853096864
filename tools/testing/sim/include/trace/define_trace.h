/* SPDX-License-Identifier: GPL-2.0 */
/* Simulation shim: tracepoints are empty inlines (linux/tracepoint.h). */
