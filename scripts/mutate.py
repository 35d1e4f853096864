#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mechanical mutation testing of the wheel's C sources.

Lists the mutants of some C files deterministically (file, line, column,
operator, before and after), applies one at a time to a scratch copy of
the tree (the tracked files, git ls-files; the checkout is never written),
runs a command there and classifies the mutant:

  killed     the command failed (or ran past --timeout: "timeout", which
             counts as killed)
  survived   the command passed
  stillborn  the mutant does not compile: --build failed, or without
             --build the command's output has a compiler "error:"

The operators (no Debian package does this for C; see the commit that
added this file):

  rel    each comparison flipped or loosened by one: < <=, > >=, == !=,
         each way
  arith  each "+ 1" and "- 1" dropped
  ret    each early return removed: a return statement inside a block of
         its function (an if, a loop), not the function's own last one
  rearm  each re-arm deleted: a call of hwtd_arm_timer, hwt_program,
         hwtimer_modify_at, hrtimer_start*, hwtimer_start*, hwtimer_modify*,
         hwtd_wheel_rearm or queue_work (a pass's continuation) as a
         statement, or replaced by 0 where its value is used

Skipped: comments, string and character literals, preprocessor lines
other than #define, statements that are only asserts (lockdep_assert*, hwtd_lockdep_assert,
WARN_ON*, BUG_ON, BUILD_BUG_ON, static_assert) and the predicate of the
debug check of (I3) (lines naming HWT_CHECK_DRIVER), code under
"#if IS_ENABLED(CONFIG_KUNIT)" or "if (IS_ENABLED(CONFIG_KUNIT) ...)"
(KUnit's helpers and manual clock, not the product) and the
"#else" of "#if BITS_PER_LONG == 64" (32-bit builds only).

  scripts/mutate.py --list
  scripts/mutate.py --show N
  scripts/mutate.py [-j 2] [--only N,M-K] [--timeout S] [--build CMD] -- CMD

CMD runs in the scratch tree with sh -c, e.g. "make -s sim SIM_SEEDS=50".
The unmutated tree must pass CMD first. Results go to --out (default
${TMPDIR:-/tmp}/hwtimer-mutate/results.tsv), one line per mutant, and a
summary with the kill share (killed / (killed + survived)) ends the run.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEFAULT_FILES = ["kmod/hwtimer_wheel.h", "kmod/hwtimer_dev_wheel.c",
                 "kmod/hwtimer_dev_records.c"]

REARM_CALLS = re.compile(
    r"\b(hwtd_arm_timer|hwt_program|__hwt_program|hwtimer_modify_at|hrtimer_start\w*|"
    r"hwtimer_start\w*|hwtimer_modify\w*|hwtd_wheel_rearm|queue_work)\s*\(")
ASSERT_STMT = re.compile(
    r"^\s*(lockdep_assert\w*|hwtd_lockdep_assert|WARN_ON\w*|WARN\w*|BUG_ON|"
    r"BUILD_BUG_ON\w*|static_assert|VM_BUG_ON\w*)\s*\(")
REL_FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}


def blank_comments(src):
    """@src with comments, strings and char literals replaced by spaces
    (newlines kept), so that offsets and line numbers stay the same."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def skipped_lines(clean):
    """Line numbers (1-based) not to mutate: preprocessor lines, KUnit-only
    regions, the 32-bit branch, assert statements."""
    skip = set()
    lines = clean.split("\n")
    stack = []  # per #if: (skip_if_branch, skip_else_branch, in_else)
    in_assert = False
    cont = define = False
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if cont or s.startswith("#"):
            # A macro's body is code; every other directive is not.
            if not (s.startswith("#define") or (cont and define)):
                skip.add(no)
            define = s.startswith("#define") or (cont and define)
            cont = s.endswith("\\")
            if s.startswith("#if"):
                kunit = "CONFIG_KUNIT" in s
                bits = re.search(r"BITS_PER_LONG\s*==\s*64", s) is not None
                stack.append([kunit, bits, False])
            elif s.startswith("#else") or s.startswith("#elif"):
                if stack:
                    stack[-1][2] = True
            elif s.startswith("#endif"):
                if stack:
                    stack.pop()
            continue
        for kunit, bits, in_else in stack:
            if kunit or (bits and in_else):
                skip.add(no)
        # "if (IS_ENABLED(CONFIG_KUNIT) ...)" and its statement: KUnit's.
        if re.match(r"^\s*if \(IS_ENABLED\(CONFIG_KUNIT\)", line):
            skip.update((no, no + 1))
        # The predicate of the debug check of (I3) (hwt_driver_late()).
        if "HWT_CHECK_DRIVER" in line:
            skip.add(no)
        if in_assert or ASSERT_STMT.match(line):
            skip.add(no)
            in_assert = ";" not in line
    return skip


def line_of(src, off):
    return src.count("\n", 0, off) + 1


def match_paren(clean, i):
    """Index just past the ")" matching the "(" at @i."""
    depth = 0
    for j in range(i, len(clean)):
        if clean[j] == "(":
            depth += 1
        elif clean[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def brace_depth_at(clean, off):
    return clean.count("{", 0, off) - clean.count("}", 0, off)


def find_mutants(path, src):
    clean = blank_comments(src)
    skip = skipped_lines(clean)
    muts = []  # (offset, end, op, before, after)

    def add(start, end, op, after):
        if line_of(src, start) in skip:
            return
        muts.append((start, end, op, src[start:end], after))

    # rel: < <= > >= == !=, not << >> <<= >>= -> nor #include <...>.
    for m in re.finditer(r"(?<![<>=!\-])(<=|>=|==|!=|<|>)(?![<>=])", clean):
        op = m.group(1)
        if op == ">" and clean[m.start() - 1:m.start()] == "-":
            continue
        add(m.start(), m.end(), "rel", REL_FLIP[op])

    # arith: "+ 1" / "- 1" after an operand, 1 not part of a longer literal.
    for m in re.finditer(r"(?<=[\w)\]])(\s*[+-]\s*)1(?![\w.])", clean):
        # not ++ or --, nor a unary minus after a keyword (return -1)
        if clean[m.start(1) - 1] in "+-" or clean[m.end(1):m.end(1) + 1] in "+-":
            continue
        word = re.search(r"(\w+)$", clean[:m.start(1)])
        if word and word.group(1) in ("return", "case", "else"):
            continue
        add(m.start(1), m.end(), "arith", "")

    # ret: return statements nested deeper than the function's body, or
    # the body of an if, else or loop without braces.
    for m in re.finditer(r"\breturn\b[^;]*;", clean):
        prev = clean[:m.start()].rstrip()
        if brace_depth_at(clean, m.start()) >= 2 or prev.endswith(")") or \
           re.search(r"\belse$", prev):
            add(m.start(), m.end(), "ret", "{}")

    # rearm: delete the call statement, or replace the call by 0.
    for m in REARM_CALLS.finditer(clean):
        start = m.start()
        # not a definition or declaration: a call is preceded by an
        # operator, "(", "=", ",", "!", "return" or a statement boundary.
        before = clean[:start].rstrip()
        if before and re.search(r"[\w*]$", before) and not before.endswith("return"):
            continue
        end = match_paren(clean, m.end() - 1)
        if end < 0:
            continue
        rest = clean[end:]
        stmt = re.match(r"\s*;", rest)
        line_start = clean.rfind("\n", 0, start) + 1
        if stmt and clean[line_start:start].strip() == "":
            add(start, end + stmt.end(), "rearm", "{}")
        else:
            add(start, end, "rearm", "0")

    muts.sort(key=lambda t: (t[0], t[2]))
    res = []
    for start, end, op, before, after in muts:
        ln = line_of(src, start)
        col = start - (src.rfind("\n", 0, start) + 1) + 1
        res.append({"file": path, "line": ln, "col": col, "op": op, "start": start,
                    "end": end, "before": before, "after": after})
    return res


def all_mutants(root, files):
    out = []
    for f in files:
        with open(os.path.join(root, f)) as fh:
            out.extend(find_mutants(f, fh.read()))
    for i, m in enumerate(out, 1):
        m["id"] = i
    return out


def describe(m):
    b = " ".join(m["before"].split())
    a = " ".join(m["after"].split()) or "(nothing)"
    return "%d\t%s:%d:%d\t%s\t%s\t->\t%s" % (m["id"], m["file"], m["line"], m["col"],
                                             m["op"], b, a)


def mutated_source(root, m):
    with open(os.path.join(root, m["file"])) as fh:
        src = fh.read()
    return src, src[:m["start"]] + m["after"] + src[m["end"]:]


def parse_only(spec, n):
    ids = set()
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            ids.update(range(int(a), int(b) + 1))
        elif part:
            ids.add(int(part))
    return sorted(i for i in ids if 1 <= i <= n)


def copy_tree(root, dest):
    files = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                           capture_output=True).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        f = f.decode()
        src = os.path.join(root, f)
        if not os.path.lexists(src):
            continue
        dst = os.path.join(dest, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)


def run(cmd, cwd, timeout):
    """(status, output); status None on a time-out, after which the
    command's whole process group (make and what it started) is killed."""
    p = subprocess.Popen(["sh", "-c", cmd], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace",
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out


COMPILE_ERROR = re.compile(r"(^|\s)[^\s:]+\.[ch]:\d+(:\d+)?: (fatal )?error: ", re.M)


def classify(tree, m, args):
    orig, mutated = mutated_source(tree, m)
    path = os.path.join(tree, m["file"])
    # A different mtime each time, so that make sees the change.
    with open(path, "w") as fh:
        fh.write(mutated)
    t0 = time.time()
    try:
        if args.build:
            rc, out = run(args.build, tree, args.timeout)
            if rc != 0:
                return "stillborn", time.time() - t0, last_line(out)
        rc, out = run(args.cmd, tree, args.timeout)
        if rc is None:
            return "timeout", time.time() - t0, "ran past %d s" % args.timeout
        if rc == 0:
            return "survived", time.time() - t0, ""
        if not args.build and COMPILE_ERROR.search(out):
            return "stillborn", time.time() - t0, COMPILE_ERROR.search(out).group(0).strip()
        return "killed", time.time() - t0, last_line(out)
    finally:
        with open(path, "w") as fh:
            fh.write(orig)


def last_line(out):
    lines = [l for l in out.strip().split("\n") if l.strip()]
    return lines[-1][:200] if lines else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the tree to mutate (its tracked files), default this checkout")
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES)
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    ap.add_argument("--show", type=int, help="print mutant N as a diff and stop")
    ap.add_argument("--only", help="run only these mutants: N, N-M, comma-separated")
    ap.add_argument("-j", type=int, default=1, help="parallel runs, at most 2")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command (default 120)")
    ap.add_argument("--build", help="a build command run before CMD: its failure is stillborn")
    ap.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                  "hwtimer-mutate"))
    ap.add_argument("cmd", nargs="*", help="the command that kills mutants (after --)")
    args = ap.parse_args()
    args.cmd = " ".join(args.cmd)
    args.j = max(1, min(args.j, 2))

    muts = all_mutants(args.root, args.files)
    if args.list:
        for m in muts:
            print(describe(m))
        by = {}
        for m in muts:
            by[m["op"]] = by.get(m["op"], 0) + 1
        print("%d mutants: %s" % (len(muts), ", ".join("%s %d" % kv for kv in sorted(by.items()))),
              file=sys.stderr)
        return 0
    if args.show:
        m = muts[args.show - 1]
        orig, mutated = mutated_source(args.root, m)
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            open(a, "w").write(orig)
            open(b, "w").write(mutated)
            diff = subprocess.run(["diff", "-u", "--label", "a/" + m["file"], "--label",
                                   "b/" + m["file"], a, b], capture_output=True, text=True)
        print(describe(m))
        print(diff.stdout, end="")
        return 0
    if not args.cmd:
        ap.error("no command: scripts/mutate.py [options] -- CMD")

    ids = parse_only(args.only, len(muts)) if args.only else list(range(1, len(muts) + 1))
    os.makedirs(args.out, exist_ok=True)
    trees = []
    for w in range(args.j):
        t = os.path.join(args.out, "tree%d" % w)
        shutil.rmtree(t, ignore_errors=True)
        os.makedirs(t)
        copy_tree(args.root, t)
        trees.append(t)
    print("mutate: %d mutants of %d; baseline run in %s" % (len(ids), len(muts), trees[0]),
          file=sys.stderr)
    for t in trees:
        if args.build:
            rc, out = run(args.build, t, args.timeout)
            if rc != 0:
                print(out[-3000:], file=sys.stderr)
                print("mutate: the unmutated tree does not build", file=sys.stderr)
                return 2
        rc, out = run(args.cmd, t, args.timeout)
        if rc != 0:
            print(out[-3000:], file=sys.stderr)
            print("mutate: the unmutated tree fails the command (status %s)" % rc,
                  file=sys.stderr)
            return 2

    results = {}
    lock = threading.Lock()
    todo = list(ids)

    def worker(tree):
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop(0)
            m = muts[i - 1]
            verdict, secs, why = classify(tree, m, args)
            with lock:
                results[i] = (verdict, secs, why)
                print("%-9s %5.1fs  %s%s" % (verdict, secs, describe(m),
                                             ("  [" + why + "]") if why and verdict != "killed" else ""),
                      flush=True)

    threads = [threading.Thread(target=worker, args=(t,)) for t in trees]
    for th in threads:
        th.start()
    for th in threads:
        th.join()

    tsv = os.path.join(args.out, "results.tsv")
    with open(tsv, "w") as fh:
        fh.write("id\tfile\tline\tcol\top\tbefore\tafter\tverdict\tseconds\tnote\n")
        for i in ids:
            m = muts[i - 1]
            v, s, why = results[i]
            fh.write("%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f\t%s\n" % (
                i, m["file"], m["line"], m["col"], m["op"], " ".join(m["before"].split()),
                " ".join(m["after"].split()), v, s, why.replace("\t", " ")))
    count = {}
    for v, _, _ in results.values():
        count[v] = count.get(v, 0) + 1
    killed = count.get("killed", 0) + count.get("timeout", 0)
    survived = count.get("survived", 0)
    print("==== survivors ====")
    for i in ids:
        if results[i][0] == "survived":
            print(describe(muts[i - 1]))
    share = 100.0 * killed / (killed + survived) if killed + survived else 0.0
    print("mutate: %d mutants: %d killed (%d by time-out), %d survived, %d stillborn; "
          "kill share %.1f%% of those that compile; results in %s" % (
              len(ids), killed, count.get("timeout", 0), survived, count.get("stillborn", 0),
              share, tsv))
    print("%d passed, %d failed" % (killed, survived))
    return 0 if not survived else 1


if __name__ == "__main__":
    sys.exit(main())
