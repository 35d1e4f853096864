/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the hwtimer wheel: start, expire entry/exit and cancel.
 * Enable with: echo 1 > /sys/kernel/tracing/events/hwtimer/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hwtimer

#if !defined(_HWTIMER_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _HWTIMER_TRACE_H

#include <linux/tracepoint.h>
#include <linux/hwtimer.h>

TRACE_EVENT(hwtimer_start,
	TP_PROTO(const struct hwtimer *timer, unsigned int cpu),
	TP_ARGS(timer, cpu),
	TP_STRUCT__entry(
		__field(const void *, timer)
		__field(const void *, function)
		__field(u64, expires)
		__field(u64, deadline)
		__field(unsigned int, cpu)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = timer->function;
		__entry->expires = timer->expires;
		__entry->deadline = timer->deadline;
		__entry->cpu = cpu;
	),
	TP_printk("timer=%p function=%ps expires=%llu deadline=%llu cpu=%u",
		  __entry->timer, __entry->function, __entry->expires,
		  __entry->deadline, __entry->cpu)
);

/* @deadline: the one it fires for, read under the base lock. */
TRACE_EVENT(hwtimer_expire_entry,
	TP_PROTO(const struct hwtimer *timer, u64 deadline, u64 now),
	TP_ARGS(timer, deadline, now),
	TP_STRUCT__entry(
		__field(const void *, timer)
		__field(const void *, function)
		__field(u64, deadline)
		__field(u64, now)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = timer->function;
		__entry->deadline = deadline;
		__entry->now = now;
	),
	TP_printk("timer=%p function=%ps deadline=%llu now=%llu",
		  __entry->timer, __entry->function, __entry->deadline,
		  __entry->now)
);

TRACE_EVENT(hwtimer_expire_exit,
	TP_PROTO(const struct hwtimer *timer),
	TP_ARGS(timer),
	TP_STRUCT__entry(
		__field(const void *, timer)
	),
	TP_fast_assign(
		__entry->timer = timer;
	),
	TP_printk("timer=%p", __entry->timer)
);

TRACE_EVENT(hwtimer_cancel,
	TP_PROTO(const struct hwtimer *timer),
	TP_ARGS(timer),
	TP_STRUCT__entry(
		__field(const void *, timer)
	),
	TP_fast_assign(
		__entry->timer = timer;
	),
	TP_printk("timer=%p", __entry->timer)
);

#endif /* _HWTIMER_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hwtimer_trace
#include <trace/define_trace.h>
