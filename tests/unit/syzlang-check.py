#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""syzlang-check DESCRIPTIONS TABLE: the descriptions kfuzztest-list
--syzlang printed parse as syzlang (a check of the subset syzkaller's
KFuzzTest builder writes: structs of typed fields and syz_kfuzztest_run$
calls), every type they name is defined once, and they match the targets
of TABLE (kfuzztest-list's text listing): one call per target, on the
target's own struct.  Prints what is wrong; exits 1 if anything is."""
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
INT = re.compile(r"^int(8|16|32|64)(\[(\d+)(:\d+)?\])?$")


def split_args(s):
    """Top-level comma-separated parts of s (brackets nest)."""
    parts, depth, cur, instr = [], 0, "", False
    for ch in s:
        if ch == '"':
            instr = not instr
        if not instr and ch in "[(":
            depth += 1
        elif not instr and ch in "])":
            depth -= 1
        if ch == "," and depth == 0 and not instr:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def check_type(t, fields, refs, where, errs):
    m = re.match(r"^(" + IDENT + r")(\[(.*)\])?$", t)
    if not m:
        errs.append(f"{where}: not a type: '{t}'")
        return
    name, args = m.group(1), m.group(3)
    a = split_args(args) if args is not None else []
    if INT.match(t):
        return
    if name == "len" or name == "bytesize":
        if len(a) != (2 if name == "len" else 1) or not re.match("^" + IDENT + "$", a[0]):
            errs.append(f"{where}: {name} wants a field: '{t}'")
        elif fields is not None and a[0] not in fields:
            errs.append(f"{where}: {name}[{a[0]}] names no field of its struct")
        if name == "len" and len(a) == 2 and not INT.match(a[1]):
            errs.append(f"{where}: len's type is not an integer: '{t}'")
    elif name == "ptr":
        if len(a) != 2 or a[0] not in ("in", "out", "inout"):
            errs.append(f"{where}: ptr wants [in|out|inout, TYPE]: '{t}'")
        else:
            check_type(a[1], None, refs, where, errs)
    elif name == "array":
        if len(a) not in (1, 2) or (len(a) == 2 and not re.match(r"^\d+(:\d+)?$", a[1])):
            errs.append(f"{where}: array wants [TYPE], [TYPE, N] or [TYPE, LO:HI]: '{t}'")
        elif len(a) == 2 and ":" in a[1] and int(a[1].split(":")[0]) > int(a[1].split(":")[1]):
            errs.append(f"{where}: an empty range: '{t}'")
        else:
            check_type(a[0], None, refs, where, errs)
    elif name == "string":
        if a and not re.match(r'^"[^"]*"$', a[0]):
            errs.append(f"{where}: string wants a quoted value: '{t}'")
    elif args is None:
        refs.append((name, where))
    else:
        errs.append(f"{where}: unknown type '{name}'")


def main():
    text = open(sys.argv[1]).read().splitlines()
    targets = {}
    for line in open(sys.argv[2]):
        m = re.match(r"^target (\S+) struct (\S+) \((\d+) bytes\)$", line.strip())
        if m:
            targets[m.group(1)] = m.group(2)
    errs, structs, calls, refs = [], {}, {}, []
    i = 0
    while i < len(text):
        line = text[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^(" + IDENT + r") \{$", line)
        if m:
            name = m.group(1)
            if name in structs:
                errs.append(f"line {i}: struct {name} defined twice")
            body = []
            while i < len(text) and text[i] != "}":
                body.append((i + 1, text[i]))
                i += 1
            if i == len(text):
                errs.append(f"line {i}: struct {name} is not closed")
            i += 1
            fields = {}
            for n, f in body:
                fm = re.match(r"^\t(" + IDENT + r")\t(\S.*?)(\t#.*)?$", f)
                if not fm:
                    errs.append(f"line {n}: not a field: '{f}'")
                    continue
                if fm.group(1) in fields:
                    errs.append(f"line {n}: field {fm.group(1)} twice")
                fields[fm.group(1)] = fm.group(2)
            if not fields:
                errs.append(f"line {i}: struct {name} has no fields")
            for f, t in fields.items():
                check_type(t, fields, refs, f"{name}.{f}", errs)
            structs[name] = fields
            continue
        m = re.match(r"^syz_kfuzztest_run\$(" + IDENT + r")\((.*)\) \(kfuzz_test\)$", line)
        if m:
            name, args = m.group(1), split_args(m.group(2))
            if name in calls:
                errs.append(f"line {i}: syz_kfuzztest_run${name} twice")
            names = [a.split(" ", 1)[0] for a in args]
            if names != ["name", "data", "len", "buf"]:
                errs.append(f"line {i}: arguments {names}, not name data len buf")
                continue
            types = dict(a.split(" ", 1) for a in args)
            for a, t in types.items():
                check_type(t, types, refs, f"syz_kfuzztest_run${name}.{a}", errs)
            if types["name"] != f'ptr[in, string["{name}"]]':
                errs.append(f"line {i}: the name argument is not the target's: {types['name']}")
            dm = re.match(r"^ptr\[in, (" + IDENT + r")\]$", types["data"])
            calls[name] = dm.group(1) if dm else None
            continue
        errs.append(f"line {i}: not syzlang: '{line}'")
    for name, where in refs:
        if name not in structs:
            errs.append(f"{where}: type {name} is not defined")
    for t, tag in targets.items():
        if t not in calls:
            errs.append(f"target {t}: no syz_kfuzztest_run${t}")
        elif calls[t] != tag:
            errs.append(f"target {t}: its call takes {calls[t]}, the target struct {tag}")
    for c in calls:
        if c not in targets:
            errs.append(f"syz_kfuzztest_run${c}: no such target")
    for e in errs:
        print("FAIL " + e)
    print(f"syzlang-check: {len(structs)} structs, {len(calls)} calls, "
          f"{len(targets)} targets: {len(errs)} problems")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
