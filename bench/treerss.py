#!/usr/bin/env python3
"""treerss: the peak memory of a command's whole process tree.

    treerss [-n RUNS] COMMAND [ARG]...

bench/measure reports the largest single process (wait4's rusage), which
says nothing of a parent and the children it runs at the same time.  This
runs COMMAND (stdin, stdout and stderr on /dev/null) and, about every
millisecond, walks its tree from the top process through
/proc/PID/task/TID/children and adds up the VmHWM (the peak resident set
so far) of every process alive at that moment.  A process's VmHWM never
falls, so each sum is at least the tree's resident memory at that moment;
the largest sum, over RUNS runs (default 3), is printed in KiB, with the
most processes seen alive together.  A process that lives less than a
millisecond may be missed.
"""
import os
import subprocess
import sys
import time

from proctree import children


def hwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def once(argv):
    peak = most = 0
    with open(os.devnull, "r+b") as null:
        p = subprocess.Popen(argv, stdin=null, stdout=null, stderr=null)
        while p.poll() is None:
            tree, todo = [], [p.pid]
            while todo:
                pid = todo.pop()
                tree.append(pid)
                todo += children(pid)
            total = sum(hwm(pid) for pid in tree)
            peak = max(peak, total)
            most = max(most, len(tree))
            time.sleep(0.0005)
    return peak, most


def main():
    args = sys.argv[1:]
    runs = 3
    if len(args) >= 2 and args[0] == "-n":
        runs = int(args[1])
        args = args[2:]
    if not args:
        sys.exit("usage: treerss [-n RUNS] COMMAND [ARG]...")
    peak = most = 0
    for _ in range(runs):
        p, m = once(args)
        peak, most = max(peak, p), max(most, m)
    print(peak, most)


if __name__ == "__main__":
    main()
