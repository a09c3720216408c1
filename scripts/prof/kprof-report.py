#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kprof-report.py - per-function kernel instruction counts of a benchmark.

Usage: kprof-report.py [--top N] CONSOLE_LOG PROF_DIR

Reads what scripts/benchmark.sh --profile left: the console log (lines
"VMTEST INFO 900-benchmark PROF round= slot= job= snap= ios= kslot="), the
plugin's counts PROF_DIR/snap.N (scripts/prof/kprof.c) and the guest's
/proc/kallsyms, one copy per module load, in 16 MiB slots of
PROF_DIR/ksyms.img. Prints per job the guest kernel instructions per I/O,
in all and per module, for the in-kernel driver (slots ref1 and ref2) and
ours, and the functions whose counts differ most. Counts are summed over
the loads of a driver and divided by the I/Os they did.
"""
import argparse
import bisect
import os
import re
import sys

SLOT = 16 << 20
# a block more than this far past the last symbol of a module is not
# attributed to it (module memory ends, vmalloc'd code follows)
MAX_GAP = 1 << 20


def load_ksyms(img, kslot, cache):
    """Sorted text symbols of load kslot: (addrs, names)."""
    if kslot in cache:
        return cache[kslot]
    with open(img, 'rb') as f:
        f.seek((kslot - 1) * SLOT)
        data = f.read(SLOT)
    data = data.split(b'\0', 1)[0].decode('ascii', 'replace')
    syms = []
    for line in data.splitlines():
        p = line.split()
        if len(p) < 3 or p[1] not in ('t', 'T'):
            continue
        mod = p[3].strip('[]') if len(p) > 3 else 'vmlinux'
        syms.append((int(p[0], 16), p[2], mod))
    syms.sort()
    if not syms:
        print(f'  profile: no symbols for load {kslot} in {img}: its counts '
              'show as "?"', file=sys.stderr)
    res = ([s[0] for s in syms], [(s[1], s[2]) for s in syms])
    cache[kslot] = res
    return res


def resolve(addrs, names, vaddr):
    i = bisect.bisect_right(addrs, vaddr) - 1
    if i < 0 or vaddr - addrs[i] > MAX_GAP:
        return ('?', '?')
    return names[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--top', type=int, default=12)
    ap.add_argument('log')
    ap.add_argument('dir')
    a = ap.parse_args()
    img = os.path.join(a.dir, 'ksyms.img')
    pat = re.compile(r'VMTEST INFO \S+ PROF (.*)')
    # (job, driver) -> {(func, mod): count}, I/Os, loads
    funcs, ios, loads = {}, {}, {}
    order = []
    cache = {}
    with open(a.log, 'rb') as f:
        for raw in f:
            m = pat.search(raw.decode('ascii', 'replace'))
            if not m:
                continue
            kv = dict(x.split('=', 1) for x in m.group(1).split())
            drv = 'ours' if kv['slot'] == 'ours' else 'ref'
            key = (kv['job'], drv)
            if kv['job'] not in order:
                order.append(kv['job'])
            snap = os.path.join(a.dir, 'snap.' + kv['snap'])
            if not os.path.exists(snap):
                print(f'  profile: {snap} is missing', file=sys.stderr)
                continue
            addrs, names = load_ksyms(img, int(kv['kslot']), cache)
            acc = funcs.setdefault(key, {})
            with open(snap) as s:
                for line in s:
                    va, cnt = line.split()
                    fn = resolve(addrs, names, int(va, 16))
                    acc[fn] = acc.get(fn, 0) + int(cnt)
            ios[key] = ios.get(key, 0) + int(kv['ios'])
            loads[key] = loads.get(key, 0) + 1
    if not order:
        print('  profile: no PROF lines in the log')
        return 1
    print('profile: guest kernel instructions per I/O (1 MiB jobs: per MiB), counted by the qemu')
    print(' plugin scripts/prof/kprof.c; sums over the loads of each driver divided by their I/Os')
    for job in order:
        r, o = (job, 'ref'), (job, 'ours')
        if r not in funcs or o not in funcs:
            continue
        per = {}
        for key in (r, o):
            per[key] = {fn: c / ios[key] for fn, c in funcs[key].items()}
        mods = {}
        for key in (r, o):
            for (fn, mod), v in per[key].items():
                mods.setdefault(mod, {r: 0.0, o: 0.0})[key] += v
        tot = {key: sum(per[key].values()) for key in (r, o)}
        print(f'{job} (loads: in-kernel {loads[r]}, ours {loads[o]})')
        print(f'  {"":34s} {"in-kernel":>10s} {"ours":>10s} {"diff":>8s}')
        print(f'  {"all kernel code":34s} {tot[r]:10.0f} {tot[o]:10.0f} {tot[o] - tot[r]:+8.0f}')
        for mod in sorted(mods, key=lambda x: -max(mods[x][r], mods[x][o])):
            v = mods[mod]
            if max(v[r], v[o]) < 1 and abs(v[o] - v[r]) < 1:
                continue
            print(f'  {mod:34s} {v[r]:10.0f} {v[o]:10.0f} {v[o] - v[r]:+8.0f}')
        keys = set(per[r]) | set(per[o])
        diffs = sorted(keys, key=lambda k: -abs(per[o].get(k, 0) - per[r].get(k, 0)))
        print(f'  functions that differ most (ours - in-kernel):')
        for k in diffs[:a.top]:
            vr, vo = per[r].get(k, 0), per[o].get(k, 0)
            print(f'    {vo - vr:+8.0f}  {vr:8.0f} {vo:8.0f}  {k[0]} [{k[1]}]')
        for key, who in ((r, 'in-kernel'), (o, 'ours')):
            own = sorted(((v, fn) for (fn, mod), v in per[key].items() if mod == 'ib_srpt'),
                         reverse=True)
            print(f'  ib_srpt functions, {who}: ' +
                  ', '.join(f'{fn} {v:.0f}' for v, fn in own[:a.top]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
