#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rtslib_info.py BINDIR - the ACL info text against rtslib-fb's own parser.

Runs "BINDIR/test_stats --dump DIR" (samples made by src/stats.c: an ACL
without a session, one with two channels, one with more channels than fit
into a page) and hands each sample, as the "info" file of a fake NodeACL
directory, to the unmodified NodeACL._get_session() of rtslib-fb, the
function behind "targetcli sessions". Prints TAP lines ("ok"/"not ok"),
which tests/unit/Makefile counts.

rtslib-fb is taken from $SRPT_RTSLIB (a directory holding rtslib_fb/), else
from the Debian package python3-rtslib-fb, fetched once with
"apt-get download" into BINDIR/rtslib. Without it, one line
"ok - rtslib ... # SKIP" is printed. pyudev, which rtslib imports but the
parser does not use, is replaced by a stub module.
"""
import glob
import os
import subprocess
import sys
import tempfile
import types

n = 0


def result(ok, what):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
    return ok


def find_rtslib(bindir):
    d = os.environ.get("SRPT_RTSLIB")
    if d:
        return d
    root = os.path.join(bindir, "rtslib")
    pkg = glob.glob(os.path.join(root, "usr/lib/python3/dist-packages"))
    if pkg:
        return pkg[0]
    os.makedirs(root, exist_ok=True)
    try:
        subprocess.run(["apt-get", "download", "python3-rtslib-fb"], cwd=root,
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for deb in glob.glob(os.path.join(root, "*.deb")):
            subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    pkg = glob.glob(os.path.join(root, "usr/lib/python3/dist-packages"))
    return pkg[0] if pkg else None


def parse(get_session, text):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "info"), "w") as f:
            f.write(text)
        return get_session(types.SimpleNamespace(path=d))


def main():
    bindir = sys.argv[1]
    where = find_rtslib(bindir)
    if where:
        sys.path.insert(0, where)
    stub = types.ModuleType("pyudev")
    stub.Context = lambda: None
    sys.modules.setdefault("pyudev", stub)
    try:
        from rtslib_fb.target import NodeACL
    except Exception as e:  # missing rtslib or one of its imports
        print("ok 1 - rtslib-fb parser # SKIP %s" % e)
        return 0
    get_session = NodeACL._get_session

    with tempfile.TemporaryDirectory() as d:
        subprocess.run([os.path.join(bindir, "test_stats"), "--dump", d],
                       check=True)
        samples = {}
        for name in ("info-none", "info-two", "info-full"):
            with open(os.path.join(d, name)) as f:
                samples[name] = f.read()

    result(parse(get_session, samples["info-none"]) is None,
           "no session: rtslib reports none")

    s = parse(get_session, samples["info-two"])
    if result(isinstance(s, dict), "two channels: rtslib reports a session"):
        result(s.get("id") == 7 and s.get("type") == "Normal" and
               s.get("state") == "LOGGED_IN",
               "session id, type and state (%r %r %r)" %
               (s.get("id"), s.get("type"), s.get("state")))
        result(s.get("alias") == "0x00000000000000000000000000000abc",
               "alias is the initiator port ID (%r)" % s.get("alias"))
        want = [dict(cid=7, cstate="LOGGED_IN", address="192.0.2.1",
                     transport="RoCE"),
                dict(cid=8, cstate="IN_LOGIN", address="0000:00ff:fe00:0001",
                     transport="IB")]
        result(s.get("connections") == want,
               "one connection per channel (%r)" % s.get("connections"))
        # every key "targetcli sessions detail" formats is there
        keys = ("alias", "id", "type", "state", "connections")
        result(all(k in s for k in keys) and
               all(set(c) == {"cid", "cstate", "address", "transport"}
                   for c in s["connections"]),
               "all keys targetcli prints are present")

    s = parse(get_session, samples["info-full"])
    conns = s.get("connections", []) if isinstance(s, dict) else []
    result(len(conns) >= 20 and
           all("address" in c and "transport" in c for c in conns),
           "a full page: %d whole connections, each with its address"
           % len(conns))
    print("1..%d" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
