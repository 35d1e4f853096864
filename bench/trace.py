# SPDX-License-Identifier: GPL-2.0
#
# make bench-trace, the debugger's half (run by bench/lib.sh as
# "gdb -batch -x bench/trace.py"): attach to the bench VM's gdb stub, stop
# at hwtbench's hwtb_trace_mark() (the "trace" benchmark calls it between
# the API calls of each facility), and single-step one round: from the
# mark before hwtimer's start to the mark after hrtimer's modify. Every
# instruction executed is written to TRACE_OUT as one line
#
#   fac step pc | instruction | address:size ...
#
# with the addresses of the memory it reads or writes (the stack's
# included), from the registers before the instruction. QEMU single-steps
# with interrupts masked, so the round is the API's own work.
#
# Then it makes that last mark return true, which ends the marks, and
# steps EXP_CB expirations of hwtimer and of timer_list, from one call of
# the benchmark's callback to the one EXP_CB later, as step 4.
#
# Environment: TRACE_PORT (the gdb stub's TCP port), TRACE_MARK,
# TRACE_CB_HWT and TRACE_CB_TL (the mark's and the two callbacks'
# addresses, from the guest's /proc/kallsyms), TRACE_OUT, TRACE_WARM (the
# rounds to let pass first, default 5).

import os
import re

import gdb

PORT = os.environ["TRACE_PORT"]
MARK = int(os.environ["TRACE_MARK"], 16)
OUT = os.environ["TRACE_OUT"]
WARM = int(os.environ.get("TRACE_WARM", "5"))
NFAC = 3
MAX_STEPS = 200000
# The expiry loops: the callbacks to let pass, those to step through.
SKIP_CB = 8
EXP_CB = 8
EXP_STEPS = 20000

REGS64 = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
          "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"]
# The 32-, 16- and 8-bit names of each register, for address operands.
ALIAS = {}
for r in REGS64:
    ALIAS[r] = r
for r, e in (("rax", "eax"), ("rbx", "ebx"), ("rcx", "ecx"), ("rdx", "edx"),
             ("rsi", "esi"), ("rdi", "edi"), ("rbp", "ebp"), ("rsp", "esp")):
    ALIAS[e] = r
for i in range(8, 16):
    ALIAS["r%dd" % i] = "r%d" % i

MEM_RE = re.compile(r"(?:%(?P<seg>[cdefgs]s):)?(?P<disp>-?(?:0x[0-9a-f]+|\d+))?"
                    r"\((?P<base>%\w+)?(?:,(?P<index>%\w+)(?:,(?P<scale>\d))?)?\)")


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & (2**64 - 1)


def seg_base(seg):
    if seg == "gs":
        return reg("gs_base")
    if seg == "fs":
        return reg("fs_base")
    return 0


def op_size(mnem, asm):
    """The access size an instruction's memory operand has, a guess good
    enough for counting cache lines: the suffix, else 8."""
    for s, n in (("q", 8), ("l", 4), ("w", 2), ("b", 1)):
        if mnem.endswith(s) and mnem not in ("call", "jl", "jb", "cmovl", "setl", "setb"):
            return n
    return 8


def accesses(pc, asm, nxt_len):
    """(address, size) of each memory access of the instruction at @pc."""
    out = []
    parts = asm.split(None, 1)
    mnem = parts[0] if parts else ""
    ops = parts[1] if len(parts) > 1 else ""
    if mnem in ("lock", "rep", "repz", "repnz") and len(parts) > 1:
        sub = ops.split(None, 1)
        mnem = sub[0]
        ops = sub[1] if len(sub) > 1 else ""
    rsp = reg("rsp")
    # The stack: push, pop, call and ret, pushf and popf.
    if mnem.startswith("push"):
        out.append((rsp - 8, 8))
    elif mnem.startswith("pop") or mnem.startswith("ret"):
        out.append((rsp, 8))
    elif mnem.startswith("call"):
        out.append((rsp - 8, 8))
    if mnem in ("lea", "nop", "nopw", "nopl", "prefetcht0", "prefetchw") or mnem.startswith("lea"):
        return out
    if "(" not in ops:
        return out
    m = MEM_RE.search(ops.split("#")[0])
    if not m:
        return out
    if m.group("base") == "%rip":
        # gdb writes the target after a "#".
        c = re.search(r"#\s*(0x[0-9a-f]+)", ops)
        addr = int(c.group(1), 16) if c else pc + nxt_len + int(m.group("disp") or "0", 0)
    else:
        addr = int(m.group("disp") or "0", 0)
        if m.group("base"):
            addr += reg(ALIAS.get(m.group("base")[1:], m.group("base")[1:]))
        if m.group("index"):
            addr += reg(ALIAS.get(m.group("index")[1:], m.group("index")[1:])) * \
                int(m.group("scale") or "1")
        addr += seg_base(m.group("seg"))
    out.append((addr & (2**64 - 1), op_size(mnem, asm)))
    return out


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("set disassembly-flavor att")
    gdb.execute("target remote 127.0.0.1:%s" % PORT)
    gdb.execute("break *0x%x" % MARK)
    arch = gdb.selected_frame().architecture()
    seen = 0
    # Let WARM rounds pass: each round is NFAC facilities' four marks.
    while True:
        gdb.execute("continue")
        fac, step = reg("rdi") & 0xffffffff, reg("rsi") & 0xffffffff
        if fac == 0 and step == 0:
            seen += 1
            if seen > WARM:
                break
    gdb.execute("delete")
    lines = []
    fac, step, n = 0, 0, 0
    while n < MAX_STEPS:
        pc = reg("rip")
        if pc == MARK and n:
            fac, step = reg("rdi") & 0xffffffff, reg("rsi") & 0xffffffff
            if fac == NFAC - 1 and step == 3:
                break
        ins = arch.disassemble(pc, count=2)
        asm = ins[0]["asm"]
        nxt = ins[1]["addr"] - pc if len(ins) > 1 else ins[0]["length"]
        acc = accesses(pc, asm, nxt)
        lines.append("%d %d 0x%x | %s | %s" % (fac, step, pc, asm,
                     " ".join("0x%x:%d" % a for a in acc)))
        gdb.execute("stepi", to_string=True)
        n += 1
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    # At the last mark: run it to its return, and make it return true.
    for _ in range(64):
        if arch.disassemble(reg("rip"))[0]["asm"].startswith("ret"):
            break
        gdb.execute("stepi", to_string=True)
    gdb.execute("set var $rax = 1")
    # The benchmark then lets HWTB_TRACE_EXP timers of hwtimer and of
    # timer_list expire at one tick: step each expiry loop from the
    # callback SKIP_CB reaches to the one EXP_CB later.
    cbs = {}
    for fac, var in ((0, "TRACE_CB_HWT"), (1, "TRACE_CB_TL")):
        if os.environ.get(var):
            cbs[int(os.environ[var], 16)] = fac
            gdb.execute("break *0x%x" % int(os.environ[var], 16))
    hits = {a: 0 for a in cbs}
    exp = []
    while cbs:
        gdb.execute("continue")
        pc = reg("rip")
        if pc not in cbs:
            continue
        hits[pc] += 1
        if hits[pc] < SKIP_CB:
            continue
        cb, fac, arrived, n = pc, cbs.pop(pc), 0, 0
        while n < EXP_STEPS:
            ins = arch.disassemble(pc, count=2)
            asm = ins[0]["asm"]
            nxt = ins[1]["addr"] - pc if len(ins) > 1 else ins[0]["length"]
            exp.append("%d 4 0x%x | %s | %s" % (fac, pc, asm, " ".join(
                "0x%x:%d" % a for a in accesses(pc, asm, nxt))))
            gdb.execute("stepi", to_string=True)
            n += 1
            pc = reg("rip")
            if pc == cb:
                arrived += 1
                if arrived == EXP_CB:
                    break
        print("trace: %d expirations of facility %d in %d instructions" % (arrived, fac, n))
    with open(OUT, "a") as f:
        f.write("\n".join(exp) + "\n")
    gdb.execute("delete")
    gdb.execute("detach")
    print("trace: %d instructions stepped into %s" % (len(lines) + len(exp), OUT))


main()
