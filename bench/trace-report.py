#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# make bench-trace, the report: what one start, one cancel and one modify
# of each facility executed, from the instructions bench/trace.py stepped
# through, counted in the primitives that price them on hardware and under
# TCG, and per function.
#
# Usage: trace-report.py TRACE SYSTEM.MAP CONSOLE_LOG
#
# TRACE: bench/trace.py's output; SYSTEM.MAP: the bench kernel's; the
# console log holds the modules' symbols ("@@KSYM" lines, from the guest's
# /proc/kallsyms) and the "@@TRACE" line.

import bisect
import collections
import re
import sys

FAC = ["hwtimer", "timer_list", "hrtimer"]
STEP = ["start", "cancel", "modify", "", "expiration"]
LINE = 64


def symbols(sysmap, console):
    syms = []
    with open(sysmap) as f:
        for ln in f:
            a, t, name = ln.split()[:3]
            if t in "tTwW":
                syms.append((int(a, 16), name))
    with open(console, errors="replace") as f:
        for ln in f:
            m = re.search(r"@@KSYM ([0-9a-f]+) [tTwW] (\S+)\s+\[(\w+)\]", ln)
            if m:
                syms.append((int(m.group(1), 16), "%s [%s]" % (m.group(2), m.group(3))))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def classify(asm):
    """The classes of one instruction that price differently from a plain
    ALU instruction: under TCG (helpers, lookups of the next translated
    block) and on hardware (serialising, locked or long-latency ones)."""
    parts = asm.split()
    c = []
    # On one vCPU the kernel patches its lock prefixes into ds prefixes
    # (alternatives_smp_unlock()): an atomic is counted either way.
    while parts and parts[0] in ("lock", "ds"):
        if parts[0] == "lock":
            c.append("locked")
        parts = parts[1:]
    mnem = parts[0] if parts else ""
    if not c and (mnem.startswith(("cmpxchg", "xadd")) or
                  mnem.startswith("xchg") and "(" in asm):
        c.append("locked")
    if c:
        return c
    if mnem.startswith("call"):
        c.append("call")
        if "*" in asm:
            c.append("indirect")
    elif mnem.startswith("ret"):
        c.append("ret")
    elif mnem.startswith("jmp"):
        c.append("jmp")
        if "*" in asm:
            c.append("indirect")
    elif mnem.startswith("j"):
        c.append("jcc")
    elif mnem in ("pushf", "pushfq", "popf", "popfq"):
        c.append("flags")
    elif mnem in ("cli", "sti"):
        c.append("cli/sti")
    elif mnem in ("div", "divq", "divl", "idiv", "idivq", "idivl"):
        c.append("div")
    elif mnem in ("rdtsc", "rdtscp"):
        c.append("rdtsc")
    elif mnem in ("wrmsr", "rdmsr"):
        c.append("msr")
    elif mnem == "pause":
        c.append("pause")
    return c


def jmp_cache_index(pc):
    """tb_jmp_cache_hash_func() of QEMU 7.2, the version this machine has
    (4 KiB pages): 6 bits of the page number and 6 of the offset; the
    offset's other bits fold into the latter. Another QEMU may index its
    cache otherwise."""
    tmp = pc ^ (pc >> 6)
    return ((tmp >> 6) & 0xfc0) | (tmp & 0x3f)


def lookups(ins):
    """The targets TCG must look up in its jump cache rather than reach by
    a chained jump: after a return or an indirect branch, and after a
    branch to another guest page (a direct jump is chained only within
    one page)."""
    out = []
    for i in range(len(ins) - 1):
        pc, asm, _ = ins[i]
        nxt = ins[i + 1][0]
        parts = [p for p in asm.split() if p not in ("ds", "lock", "bnd", "notrack")]
        mnem = parts[0] if parts else ""
        indirect = mnem.startswith("ret") or "*" in asm
        branch = mnem.startswith(("j", "call"))
        if indirect or (branch and nxt >> 12 != pc >> 12):
            out.append(nxt)
    return out


def main():
    trace, sysmap, console = sys.argv[1:4]
    addrs, names = symbols(sysmap, console)

    def sym(pc):
        i = bisect.bisect_right(addrs, pc) - 1
        return names[i] if i >= 0 else "0x%x" % pc

    seg = collections.OrderedDict()
    with open(trace) as f:
        for ln in f:
            head, asm, acc = (x.strip() for x in ln.split("|"))
            fac, step, pc = head.split()
            key = (int(fac), int(step))
            if key[1] == 3:
                continue
            seg.setdefault(key, []).append((int(pc, 16), asm, acc.split()))

    cols = ["instructions", "memory", "stack", "lines", "call", "ret", "indirect",
            "jcc", "flags", "cli/sti", "locked", "div", "rdtsc", "msr"]
    rows = {}
    funcs = {}
    per = {}
    for key, ins in seg.items():
        # An expiry segment runs from one callback's entry to the entry of
        # the one some expirations later: counts per expiration.
        per[key] = sum(1 for pc, _, _ in ins if pc == ins[0][0]) if key[1] == 4 else 1
        r = collections.Counter()
        lines, fcount = set(), collections.OrderedDict()
        for pc, asm, acc in ins:
            r["instructions"] += 1
            for c in classify(asm):
                r[c] += 1
            for a in acc:
                addr, size = (int(x, 0) for x in a.split(":"))
                r["memory"] += 1
                if asm.split()[0].startswith(("push", "pop", "call", "ret")):
                    r["stack"] += 1
                else:
                    lines.add(addr // LINE)
                    lines.add((addr + size - 1) // LINE)
            s = sym(pc)
            fcount[s] = fcount.get(s, 0) + 1
        r["lines"] = len(lines)
        rows[key] = r
        funcs[key] = fcount

    print("One call of each, after the warm-up rounds, single-stepped with interrupts")
    print("masked; between the marks: the call and the loop's code around it.")
    print("memory: operands that read or write memory, the stack's included;")
    print("stack: push, pop, call, ret; lines: the distinct %d-byte lines of the" % LINE)
    print("rest; flags: pushf/popf (irqsave/irqrestore); locked: atomic read-modify-")
    print("writes (lock-prefixed, xchg, cmpxchg, xadd; on this one vCPU the kernel")
    print("has patched their lock prefixes out).\n")
    if any(k[1] == 4 for k in per):
        print("Expiration rows: per expiration, over %s expirations stepped in one pass,"
              % "/".join(str(per[k]) for k in sorted(per) if k[1] == 4))
        print("from one callback's entry to the next's: the expiry loop, and the")
        print("benchmark's callback (the same for every facility).\n")
    print("%-24s" % "call" + "".join("%13s" % c for c in cols))
    for step in (0, 1, 2, 4):
        for fac in range(3):
            key = (fac, step)
            if key not in rows:
                continue
            print("%-24s" % ("%s %s" % (FAC[fac], STEP[step])) +
                  "".join(("%13d" if per[key] == 1 else "%13.1f") % (rows[key][c] / per[key])
                          for c in cols))
    print()
    print("Under TCG (QEMU 7.2): the targets each loop of the benchmark reaches")
    print("through QEMU's jump cache (returns, indirect branches, branches to another")
    print("page), and those of them that share a cache index, which evict each other")
    print("on every pass of the loop and take the slow lookup each time:\n")
    for label, steps in (("start+cancel", (0, 1)), ("modify", (2,)), ("expiration", (4,))):
        for fac in range(3):
            ins = [x for st in steps for x in seg.get((fac, st), [])]
            if not ins:
                continue
            t = lookups(ins)
            idx = collections.defaultdict(set)
            for pc in t:
                idx[jmp_cache_index(pc)].add(pc)
            clash = sorted(pcs for pcs in idx.values() if len(pcs) > 1)
            print("%-24s lookups %3d, distinct targets %3d, sharing an index %d%s" %
                  ("%s %s" % (FAC[fac], label), len(t), len(set(t)),
                   sum(len(c) for c in clash),
                   "".join("\n    %s" % ", ".join(sym(pc) + "+0x%x" % (pc - addrs[bisect.bisect_right(addrs, pc) - 1])
                                                   for pc in sorted(c)) for c in clash)))
    print()
    for step in (0, 1, 2, 4):
        for fac in range(3):
            key = (fac, step)
            if key not in rows:
                continue
            print("%s %s: instructions per function, in the order first reached%s" %
                  (FAC[fac], STEP[step], ", per expiration" if per[key] > 1 else ""))
            for s, n in funcs[key].items():
                print(("  %5d  %s" if per[key] == 1 else "  %7.1f  %s") % (n / per[key], s))
            print()


main()
