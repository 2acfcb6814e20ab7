"""proctree: a process's children and state, from /proc (for bench/ scripts)."""
import os


def children(pid):
    """The pids of pid's children, through /proc/PID/task/TID/children."""
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def state(pid):
    """Its state letter (R, S, Z...), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None
