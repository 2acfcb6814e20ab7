#!/usr/bin/env python3
"""siglat: how long a command takes to end after a signal.

    siglat [-n RUNS] [-s SIG] [--children] [--ready CMD] COMMAND [ARG]...

Starts COMMAND with its standard input an open pipe that never gets a byte
(stdout and stderr on /dev/null, SIGINT, SIGTERM and SIGHUP at their
defaults), waits until it is asleep in the kernel (a read, a poll or a
write) and, with --ready, until the shell command CMD succeeds (such as
"the mock has logged a request"), then sends SIG (default TERM) and times
the interval until the process has been reaped.  With --children, that
interval ends only when every child it had at the moment of the signal is
gone too (reaped, or a zombie of init's).  Prints "median min max 0 fails"
in milliseconds, as bench/measure does, over RUNS runs (default 9); a run
that has not ended 10 s after the signal counts as failed and is killed.
"""
import os
import signal
import subprocess
import sys
import time

from proctree import children, state


def alive(pid):
    s = state(pid)
    return s is not None and s != "Z"


def one(cmd, sig, ready, with_children):
    r, w = os.pipe()
    p = subprocess.Popen(cmd, stdin=r, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         restore_signals=True,
                         preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL)
                                             for s in (signal.SIGINT, signal.SIGTERM,
                                                       signal.SIGHUP)])
    os.close(r)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if (ready is None or subprocess.call(ready, shell=True) == 0) and state(p.pid) == "S":
                break
            time.sleep(0.01)
        time.sleep(0.05)
        kids = children(p.pid) if with_children else []
        t0 = time.monotonic()
        p.send_signal(sig)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return None
        while any(alive(k) for k in kids):
            if time.monotonic() - t0 > 10:
                return None
            time.sleep(0.0005)
        return (time.monotonic() - t0) * 1000
    finally:
        os.close(w)


def main(argv):
    runs, sig, ready, with_children = 9, signal.SIGTERM, None, False
    while argv and argv[0].startswith("-"):
        opt = argv.pop(0)
        if opt == "-n":
            runs = int(argv.pop(0))
        elif opt == "-s":
            sig = getattr(signal, "SIG" + argv.pop(0))
        elif opt == "--ready":
            ready = argv.pop(0)
        elif opt == "--children":
            with_children = True
        elif opt == "--":
            break
    times, fails = [], 0
    for _ in range(runs):
        t = one(argv, sig, ready, with_children)
        if t is None:
            fails += 1
        else:
            times.append(t)
    times.sort()
    if not times:
        print("0 0 0 0 %d" % fails)
        return
    print("%.2f %.2f %.2f 0 %d" % (times[len(times) // 2], times[0], times[-1], fails))


if __name__ == "__main__":
    main(sys.argv[1:])
